import { API_BASE } from '../api-base.js';
import {
  errorResponses,
  fromZod,
  ref,
  successResponse,
  type JsonObject,
  type OpenApiFeature,
} from '../openapi/openapi.js';
import { contentLookupBody } from './search.schemas.js';

const sha256Hex = { type: 'string', pattern: '^[0-9a-f]{64}$' };

const query = (name: string, description: string, schema: JsonObject): JsonObject => ({
  name,
  in: 'query',
  required: false,
  description,
  schema,
});

const flag = (name: string, description: string) =>
  query(name, description, { type: 'string', enum: ['true', 'false', '1', '0'], default: 'false' });

/** Free-text filters: at most 1024 characters, no NUL; empty means not set. */
const text = { type: 'string', maxLength: 1024, pattern: '^[^\\u0000]*$' };

const timestamp = { type: 'integer', minimum: 0, maximum: Number.MAX_SAFE_INTEGER };

const order = (description: string) =>
  query('order', description, { type: 'string', enum: ['asc', 'desc'], default: 'desc' });

const pageParameters: JsonObject[] = [
  query('limit', 'Page size.', { type: 'integer', minimum: 1, maximum: 1000, default: 50 }),
  query('offset', 'Matches skipped (after offset_time narrowed them).', {
    type: 'integer',
    minimum: 0,
    maximum: Number.MAX_SAFE_INTEGER,
    default: 0,
  }),
  query(
    'offset_time',
    'Epoch ms cursor: only items strictly before it (desc) or after it (asc).',
    timestamp,
  ),
  order('By timestamp.'),
  query('application', 'Only assets of this application (exact).', text),
  flag('include_trashed', 'Include trashed assets.'),
  flag('include_corrupted', 'Include corrupted assets.'),
];

const searchParameters: JsonObject[] = [
  query('hash', 'Exact hash or a prefix of it, either case.', {
    type: 'string',
    pattern: '^[0-9a-fA-F]{1,64}$',
  }),
  query('sha256', 'Plain SHA-256 of the content (no timestamp), either case.', {
    type: 'string',
    pattern: '^[0-9a-fA-F]{64}$',
  }),
  query('start_time', 'Epoch ms, inclusive lower bound.', timestamp),
  query('end_time', 'Epoch ms, inclusive upper bound.', timestamp),
  query('tags', 'Comma-separated; the asset must carry every one.', { type: 'string' }),
  query('mime_type', 'Exact MIME type, or a whole family with `/*` (`image/*`).', text),
  query('user', 'Exact user.', text),
  query(
    'q',
    'Free text: every whitespace-separated term must occur, case-insensitively, in ' +
      '`human_filename`, `human_path`, `description` or a tag (substring match, any ' +
      'Unicode; at most 16 terms). Empty: no filter.',
    text,
  ),
  query(
    'path',
    'A folder: `human_path` equal to it or below it (`photos` matches `photos` and ' +
      '`photos/2026`, not `photos-old`). Slashes at either end are ignored.',
    text,
  ),
  query(
    'sort',
    'What `order` sorts by: `timestamp` (ingest time, unique) or `taken`: the date taken ' +
      '(`taken_at`), else the ingest time, ties by timestamp (a timeline). Under `taken`, ' +
      '`offset_time` is a value of that key: strictly before it (desc) or after it (asc), ' +
      'so assets sharing the key at the cursor are all excluded; to page exactly, send the ' +
      "last item's key plus 1 (desc; minus 1 asc) with `offset` = how many items of that " +
      'key the pages so far held. `start_time` and `end_time` stay on the ingest time.',
    { type: 'string', enum: ['timestamp', 'taken'], default: 'timestamp' },
  ),
];

const answers = {
  '200': successResponse('One page and the exact number of matches', ref('AssetPage')),
  ...errorResponses({ 400: 'A parameter is invalid (named in the message)' }),
};

/** `GET /list`, `GET /search` and `POST /search/sha256`. */
export const searchOpenApi: OpenApiFeature = {
  paths: {
    [`${API_BASE}/list`]: {
      get: {
        summary: 'List assets by timestamp',
        operationId: 'listAssets',
        parameters: pageParameters,
        responses: answers,
      },
    },
    [`${API_BASE}/search`]: {
      get: {
        summary: 'Search assets; every filter given must match',
        operationId: 'searchAssets',
        parameters: [
          ...searchParameters,
          ...pageParameters.map((p) => (p.name === 'order' ? order('By `sort`.') : p)),
        ],
        responses: answers,
      },
    },
    [`${API_BASE}/search/sha256`]: {
      post: {
        summary: 'Which of many contents the store holds, by their plain SHA-256',
        description:
          'One lookup for up to 1000 digests (either case; repeats answered once): per digest held, the newest asset holding it, among visible assets unless include_trashed or include_corrupted. The per-digest `GET /search?sha256=` stays.',
        operationId: 'findAssetsBySha256',
        requestBody: {
          required: true,
          content: { 'application/json': { schema: fromZod(contentLookupBody) } },
        },
        responses: {
          '200': successResponse('The digests held and those not held', ref('ContentLookup')),
          ...errorResponses({
            400: 'The body is not an object with 1 to 1000 digests (the field is named)',
            413: 'Body over 256 KiB',
            415: 'Body in an encoding or charset that cannot be read',
          }),
        },
      },
    },
  },
  schemas: {
    ContentLookup: {
      type: 'object',
      required: ['items', 'missing'],
      additionalProperties: false,
      properties: {
        items: {
          description: 'One per distinct digest held, in the order asked: its newest asset.',
          type: 'array',
          items: {
            type: 'object',
            required: ['sha256', 'hash', 'timestamp'],
            additionalProperties: false,
            properties: {
              sha256: sha256Hex,
              hash: sha256Hex,
              timestamp: { type: 'integer', minimum: 0 },
            },
          },
        },
        missing: {
          description: 'The distinct digests not held, lowercase, in the order asked.',
          type: 'array',
          items: sha256Hex,
        },
      },
    },
    AssetPage: {
      type: 'object',
      required: ['items', 'pagination'],
      additionalProperties: false,
      properties: {
        items: { type: 'array', items: ref('AssetRecord') },
        pagination: {
          type: 'object',
          required: ['limit', 'offset', 'total'],
          additionalProperties: false,
          properties: {
            limit: { type: 'integer', minimum: 1 },
            offset: { type: 'integer', minimum: 0 },
            total: { type: 'integer', minimum: 0 },
          },
        },
      },
    },
  },
};
