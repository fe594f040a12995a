import { errorResponses, type JsonObject, type OpenApiFeature } from '../openapi/openapi.js';
import { UPLOADS_PATH } from './tus-uploads.js';

const header = (description: string, schema: JsonObject = { type: 'string' }): JsonObject => ({
  description,
  schema,
});
const integer = { type: 'integer', minimum: 0 };
const tusResumable: JsonObject = {
  name: 'Tus-Resumable',
  in: 'header',
  required: true,
  schema: { const: '1.0.0' },
};
/** tus: `key base64value` pairs, comma-separated; the value may be left out. */
const uploadMetadata: JsonObject = {
  type: 'string',
  pattern:
    '^[a-z_]{1,32}( ([A-Za-z0-9+/]{4})*([A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?)?' +
    '(,[a-z_]{1,32}( ([A-Za-z0-9+/]{4})*([A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?)?)*$',
};
const uploadChecksum: JsonObject = {
  name: 'Upload-Checksum',
  in: 'header',
  required: false,
  description: 'tus checksum extension: `sha256 <base64 of the body`s SHA-256>`.',
  schema: { type: 'string', pattern: '^sha256 [A-Za-z0-9+/]{43}=$' },
};
const uploadId: JsonObject = {
  name: 'id',
  in: 'path',
  required: true,
  description: 'The upload id from the creation answer`s Location.',
  schema: { type: 'string', pattern: '^[0-9a-f]{32}$' },
};
const assetHeaders: Record<string, JsonObject> = {
  'Asset-Hash': header('Once the last byte arrived: the asset hash.'),
  'Asset-Timestamp': header('Once the last byte arrived: the asset timestamp (epoch ms).', integer),
};
const protocolErrors = {
  400: 'Bad tus headers, or Upload-Metadata a form field would be refused for (named)',
  412: 'Tus-Resumable missing',
};
const finishErrors = {
  503: 'The index is unavailable while the upload became an asset; a PATCH of no bytes at the end offset tries again',
  507: 'The storage disk is full',
};

/** `/uploads` (tus 1.0.0: creation, creation-with-upload, termination, expiration, checksum). */
export const uploadOpenApi: OpenApiFeature = {
  paths: {
    [UPLOADS_PATH]: {
      options: {
        operationId: 'uploadOptions',
        summary: 'tus discovery: versions, extensions, Tus-Max-Size, Tus-Checksum-Algorithm',
        responses: {
          '204': {
            description: 'What the server supports',
            headers: {
              'Tus-Version': header('1.0.0'),
              'Tus-Extension': header(
                'creation,creation-with-upload,termination,expiration,checksum',
              ),
              'Tus-Max-Size': header('max_upload_bytes', integer),
              'Tus-Checksum-Algorithm': header('sha256'),
            },
          },
        },
      },
      post: {
        operationId: 'createUpload',
        summary: 'Create a resumable upload (tus creation, optionally with its first bytes)',
        description:
          'Upload-Metadata keys: filename, mime_type, human_file_name, human_readable_path, application, user, tags, description, checked like the POST /ingest form fields. An upload of 0 bytes, or one whose body holds every byte, becomes an asset at once.',
        parameters: [
          tusResumable,
          { name: 'Upload-Length', in: 'header', required: true, schema: integer },
          { name: 'Upload-Metadata', in: 'header', required: false, schema: uploadMetadata },
          uploadChecksum,
        ],
        requestBody: {
          required: false,
          description:
            'The first bytes (creation-with-upload). A body of any other type is ignored: the upload is created empty.',
          content: {
            'application/offset+octet-stream': { schema: { type: 'string', format: 'binary' } },
          },
        },
        responses: {
          '201': {
            description: 'Created; Location names it',
            headers: {
              Location: header('/api/v1/can/0/uploads/{id}'),
              'Upload-Offset': header('Bytes received (creation-with-upload)', integer),
              'Upload-Expires': header('When an unfinished upload is deleted'),
              ...assetHeaders,
            },
          },
          ...errorResponses({
            ...protocolErrors,
            413: 'Upload-Length over max_upload_bytes',
            415: 'A body that is not application/offset+octet-stream',
            460: 'Upload-Checksum does not match the body; the bytes were not kept',
            ...finishErrors,
          }),
        },
      },
    },
    [`${UPLOADS_PATH}/{id}`]: {
      head: {
        operationId: 'getUploadOffset',
        summary: 'Where the upload stands; a finished one names its asset',
        parameters: [tusResumable, uploadId],
        responses: {
          '200': {
            description: 'Offset and length',
            headers: {
              'Upload-Offset': header('Bytes received', integer),
              'Upload-Length': header('Bytes announced', integer),
              'Upload-Metadata': header('As sent'),
              ...assetHeaders,
            },
          },
          ...errorResponses({ ...protocolErrors, 404: 'No such upload', 410: 'Expired' }),
        },
      },
      patch: {
        operationId: 'appendToUpload',
        summary: 'Append bytes at Upload-Offset; the last byte makes the asset',
        parameters: [
          tusResumable,
          uploadId,
          { name: 'Upload-Offset', in: 'header', required: true, schema: integer },
          uploadChecksum,
        ],
        requestBody: {
          required: true,
          content: {
            'application/offset+octet-stream': { schema: { type: 'string', format: 'binary' } },
          },
        },
        responses: {
          '204': {
            description: 'Stored',
            headers: {
              'Upload-Offset': header('The new offset', integer),
              'Upload-Expires': header('When the unfinished upload is deleted'),
              ...assetHeaders,
            },
          },
          ...errorResponses({
            ...protocolErrors,
            403: 'Upload-Offset or Content-Type missing',
            404: 'No such upload',
            409: 'Upload-Offset is not the upload`s offset',
            410: 'Expired',
            413: 'More bytes than Upload-Length',
            423: 'Another request is writing this upload (waited 1 s); try again shortly',
            460: 'Upload-Checksum does not match the body; the offset stays',
            ...finishErrors,
          }),
        },
      },
      delete: {
        operationId: 'terminateUpload',
        summary: 'Terminate an unfinished upload: its bytes are deleted',
        parameters: [tusResumable, uploadId],
        responses: {
          '204': { description: 'Deleted' },
          ...errorResponses({
            ...protocolErrors,
            400: 'Bad tus headers, or the upload is finished (an asset now)',
            404: 'No such upload',
            423: 'Another request is writing this upload (waited 1 s); try again shortly',
          }),
        },
      },
      options: {
        operationId: 'uploadResourceOptions',
        summary: 'tus discovery, as on the collection',
        parameters: [uploadId],
        responses: {
          '204': { description: 'What the server supports' },
          ...errorResponses({ 404: 'An id this service never handed out' }),
        },
      },
    },
  },
};
