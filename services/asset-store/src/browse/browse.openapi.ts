import { API_BASE } from '../api-base.js';
import {
  errorResponses,
  ref,
  successResponse,
  type JsonObject,
  type OpenApiFeature,
} from '../openapi/openapi.js';

const query = (name: string, description: string, schema: JsonObject): JsonObject => ({
  name,
  in: 'query',
  required: false,
  description,
  schema,
});
const count = { type: 'integer', minimum: 0 };

/** `GET /folders` and `GET /duplicates`: what the console browses by. */
export const browseOpenApi: OpenApiFeature = {
  paths: {
    [`${API_BASE}/folders`]: {
      get: {
        summary: 'The subfolders of a folder (by human_path), each with its count of assets',
        description:
          'Among assets neither trashed nor corrupted; at most 1000, by name. A subfolder’s count covers it and everything below it. Slashes at either end of `path` are ignored.',
        operationId: 'listFolders',
        parameters: [
          query('path', 'The folder; absent or empty: the top level.', {
            type: 'string',
            maxLength: 1024,
            pattern: '^[^\\u0000]*$',
          }),
        ],
        responses: {
          '200': successResponse('The subfolders', ref('FolderListing')),
          ...errorResponses({ 400: 'A bad parameter (named)' }),
        },
      },
    },
    [`${API_BASE}/duplicates`]: {
      get: {
        summary: 'Contents held by more than one asset, grouped (the most copies first)',
        description:
          'Among assets neither trashed nor corrupted, by plain content SHA-256; each group lists up to 50 of its assets, newest first.',
        operationId: 'listDuplicates',
        parameters: [
          query('limit', 'Groups per page.', {
            type: 'integer',
            minimum: 1,
            maximum: 100,
            default: 20,
          }),
          query('offset', 'Groups skipped.', {
            type: 'integer',
            minimum: 0,
            maximum: Number.MAX_SAFE_INTEGER,
            default: 0,
          }),
        ],
        responses: {
          '200': successResponse('A page of groups', ref('DuplicatePage')),
          ...errorResponses({ 400: 'A bad parameter (named)' }),
        },
      },
    },
  },
  schemas: {
    FolderListing: {
      type: 'object',
      required: ['path', 'folders'],
      additionalProperties: false,
      properties: {
        path: { type: 'string', description: 'The folder asked, without slashes at its ends' },
        folders: {
          type: 'array',
          items: {
            type: 'object',
            required: ['name', 'path', 'count'],
            additionalProperties: false,
            properties: {
              name: { type: 'string' },
              path: { type: 'string', description: 'For `path=` of /search and /folders' },
              count: count,
            },
          },
        },
      },
    },
    DuplicatePage: {
      type: 'object',
      required: ['groups', 'pagination'],
      additionalProperties: false,
      properties: {
        groups: {
          type: 'array',
          items: {
            type: 'object',
            required: ['sha256', 'count', 'items'],
            additionalProperties: false,
            properties: {
              sha256: { type: 'string', pattern: '^[0-9a-f]{64}$' },
              count: { type: 'integer', minimum: 2 },
              items: { type: 'array', items: ref('AssetRecord') },
            },
          },
        },
        pagination: {
          type: 'object',
          required: ['limit', 'offset', 'total'],
          additionalProperties: false,
          properties: { limit: count, offset: count, total: count },
        },
      },
    },
  },
};
