import { API_BASE } from '../api-base.js';
import {
  errorResponses,
  fromZod,
  hashParameter,
  ref,
  successResponse,
  type JsonObject,
  type OpenApiFeature,
} from '../openapi/openapi.js';
import { assetRecordSchema } from './asset-record.js';
import { fileIngestFieldsSchema, ingestFieldsSchema, patchSchema } from './asset.schemas.js';
import { MAX_TAG_LENGTH, MAX_TAGS } from './tags.js';

const assetHash = hashParameter('The asset hash: 64 hexadecimal characters, either case.');

/** What each metadata field means; the rules come from the zod schemas the routes parse. */
const fieldDescriptions: Record<string, string> = {
  mime_type: 'Overrides the detected type (and the file extension). Empty means absent.',
  human_file_name: 'Logical file name.',
  human_readable_path: 'Logical folder path.',
  application: 'Producing application.',
  user: 'User or agent identity.',
  tags: `Comma-separated; trimmed, empty ones and duplicates dropped; at most ${MAX_TAGS} tags of 1-${MAX_TAG_LENGTH} characters.`,
  description: 'Description.',
  sha256:
    'Expected plain SHA-256 of the file (64 hex); another content: 400, nothing kept. Empty means absent.',
};

/** `fromZod(schema)` with each known property described. */
function described(schema: JsonObject): JsonObject {
  const properties = schema.properties as Record<string, JsonObject>;
  return {
    ...schema,
    properties: Object.fromEntries(
      Object.entries(properties).map(([name, property]) => [
        name,
        {
          ...property,
          ...(fieldDescriptions[name] ? { description: fieldDescriptions[name] } : {}),
        },
      ]),
    ),
  };
}

const fileIngestBody = described(fromZod(fileIngestFieldsSchema));
const dataIngestBody = described(fromZod(ingestFieldsSchema));

const ingestAnswers = {
  '200': successResponse('Stored', ref('IngestResult')),
  ...errorResponses({
    400: 'Invalid input (named in the message)',
    413: 'Content over the limit; nothing kept',
    500: 'Unexpected failure; nothing kept',
    507: 'The storage disk is full; nothing kept, the same request may succeed later',
  }),
};

/** What every download answer carries besides the content's own headers. */
const downloadHeaders: Record<string, JsonObject> = {
  ETag: { description: 'The quoted hash (strong).', schema: { type: 'string' } },
  'Last-Modified': { description: 'The ingest time.', schema: { type: 'string' } },
  'Repr-Digest': {
    description:
      'RFC 9530: sha-256=:<base64>: of the whole content; absent until known for assets stored before digests were kept.',
    schema: { type: 'string', pattern: '^sha-256=:[A-Za-z0-9+/]{43}=:$' },
  },
  'X-Content-Type-Options': { schema: { const: 'nosniff' } },
  'Content-Security-Policy': { schema: { const: 'sandbox' } },
};

const hashErrors = errorResponses({
  400: 'Malformed hash',
  404: 'Unknown hash or container',
});

/** What the JSON body parser of data ingest and PATCH answers before the route runs. */
const jsonBodyErrors = errorResponses({
  413: 'Body over max_json_bytes; nothing stored or changed',
  415: 'Body in an encoding or charset that cannot be read',
});

const schemas: Record<string, JsonObject> = {
  // The record's one declaration (asset-record.ts): the generated client's types come from here.
  AssetRecord: fromZod(assetRecordSchema),
  IngestResult: {
    type: 'object',
    required: ['timestamp', 'hash', 'filename'],
    additionalProperties: false,
    properties: {
      timestamp: { type: 'integer', minimum: 0 },
      hash: { type: 'string', pattern: '^[0-9a-f]{64}$' },
      filename: { type: 'string', description: 'Physical filename, without folders.' },
    },
  },
};

/** Ingest, download, metadata, PATCH, trash and restore in the OpenAPI document. */
export const assetOpenApi: OpenApiFeature = {
  schemas,
  paths: {
    [`${API_BASE}/ingest`]: {
      post: {
        summary: 'Ingest a file',
        operationId: 'ingestFile',
        requestBody: {
          required: true,
          content: {
            'multipart/form-data': {
              schema: {
                ...fileIngestBody,
                required: ['file'],
                properties: {
                  file: { type: 'string', format: 'binary' },
                  ...(fileIngestBody.properties as JsonObject),
                },
              },
            },
          },
        },
        responses: {
          ...ingestAnswers,
          ...errorResponses({ 415: 'A Content-Encoding other than identity' }),
        },
      },
    },
    [`${API_BASE}/ingest/data`]: {
      post: {
        summary: 'Ingest a JSON value',
        operationId: 'ingestData',
        requestBody: {
          required: true,
          content: {
            'application/json': {
              schema: {
                ...dataIngestBody,
                required: ['data'],
                properties: {
                  data: {
                    description:
                      'Any JSON value; stored as JSON.stringify(data, null, 2), numbers with the digits sent.',
                  },
                  ...(dataIngestBody.properties as JsonObject),
                },
              },
            },
          },
        },
        responses: { ...ingestAnswers, ...jsonBodyErrors },
      },
    },
    [`${API_BASE}/asset/{hash}`]: {
      parameters: [assetHash],
      get: {
        summary: 'Download the content (HEAD, Range and conditional requests supported)',
        description:
          'ETag is the quoted hash, Last-Modified the ingest time. Preconditions follow RFC 9110 whatever the request Cache-Control says: If-Match, If-Unmodified-Since (412), If-None-Match, If-Modified-Since (304), If-Range. Every answer carries X-Content-Type-Options: nosniff and Content-Security-Policy: sandbox.',
        operationId: 'getAsset',
        parameters: [
          {
            name: 'disposition',
            in: 'query',
            required: false,
            description:
              '`inline` answers `Content-Disposition: inline` so that a browser shows the content in a frame (PDFs in its own viewer), still sandboxed; on S3 storage such a GET is served, not redirected, as S3 cannot add the sandbox.',
            schema: { type: 'string', enum: ['attachment', 'inline'], default: 'attachment' },
          },
        ],
        responses: {
          '200': {
            description: 'The bytes, with Content-Type, Content-Disposition, ETag',
            headers: downloadHeaders,
            content: { '*/*': { schema: { type: 'string', format: 'binary' } } },
          },
          '206': { description: 'The requested range', headers: downloadHeaders },
          '304': { description: 'Not modified (If-None-Match or If-Modified-Since)' },
          '412': {
            description: 'If-Match or If-Unmodified-Since not met',
            content: { 'application/json': { schema: ref('ErrorEnvelope') } },
          },
          '416': {
            description: 'Range not satisfiable',
            content: { 'application/json': { schema: ref('ErrorEnvelope') } },
          },
          ...errorResponses({
            400: 'Malformed hash, or a disposition other than attachment or inline',
            404: 'Unknown hash or container',
            500: 'The asset is corrupted or its file is missing',
          }),
        },
      },
      head: {
        summary: 'The download headers, without the body',
        operationId: 'headAsset',
        responses: {
          '200': { description: 'Content-Type, Content-Length, Content-Disposition, ETag' },
          '206': { description: 'The headers of the requested range' },
          '304': { description: 'Not modified (If-None-Match or If-Modified-Since)' },
          '400': { description: 'Malformed hash' },
          '412': { description: 'If-Match or If-Unmodified-Since not met' },
          '404': { description: 'Unknown hash or container' },
          '416': { description: 'Range not satisfiable' },
          '500': { description: 'The asset is corrupted or its file is missing' },
        },
      },
      patch: {
        summary: 'Replace tags and/or description',
        operationId: 'updateAsset',
        requestBody: {
          // The JSON body parser reads an empty body as `{}` (express.json's way): no change.
          required: false,
          description: 'An empty body is `{}`: nothing changes.',
          content: {
            'application/json': { schema: fromZod(patchSchema) },
          },
        },
        responses: {
          '200': successResponse('Updated', { const: 'updated' }),
          ...hashErrors,
          ...jsonBodyErrors,
        },
      },
      delete: {
        summary: 'Move to the trash (idempotent)',
        operationId: 'trashAsset',
        responses: { '200': successResponse('Trashed', { const: 'trashed' }), ...hashErrors },
      },
    },
    [`${API_BASE}/asset/{hash}/meta`]: {
      parameters: [assetHash],
      get: {
        summary: 'The metadata record',
        operationId: 'getAssetMeta',
        responses: { '200': successResponse('The record', ref('AssetRecord')), ...hashErrors },
      },
    },
    [`${API_BASE}/asset/{hash}/restore`]: {
      parameters: [assetHash],
      post: {
        summary: 'Take out of the trash (idempotent)',
        operationId: 'restoreAsset',
        responses: { '200': successResponse('Restored', { const: 'restored' }), ...hashErrors },
      },
    },
  },
};
