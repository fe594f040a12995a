import { API_BASE } from '../api-base.js';
import {
  errorResponses,
  hashParameter,
  ref,
  successResponse,
  type JsonObject,
  type OpenApiFeature,
} from '../openapi/openapi.js';

const BASE = `${API_BASE}/admin`;
const security = [{ adminToken: [] }];
const authErrors = {
  401: 'Missing or wrong bearer token',
  403: 'No admin_token configured',
};
const count = { type: 'integer', minimum: 0 };
const counts = (fields: Record<string, JsonObject>): JsonObject => ({
  type: 'object',
  required: Object.keys(fields),
  additionalProperties: false,
  properties: fields,
});

/** `POST /admin/verify`, `POST /admin/rebuild`, `DELETE /admin/asset/{hash}`. */
export const adminOpenApi: OpenApiFeature = {
  schemas: {
    // Named: a job's `result` is one of them (job.openapi.ts).
    VerifyReport: counts({ checked: count, corrupted: count, missing: count, duration_ms: count }),
    RebuildReport: counts({
      mode: { type: 'string', enum: ['soft', 'hard'], description: 'What finally ran' },
      scanned: count,
      indexed: count,
      errors: count,
    }),
  },
  paths: {
    [`${BASE}/verify`]: {
      post: {
        summary: 'Scrub every asset now; answers when done',
        operationId: 'verifyAssets',
        security,
        responses: {
          '200': successResponse(
            'Scrub counts (corrupted: content mismatch; missing: file gone)',
            ref('VerifyReport'),
          ),
          ...errorResponses(authErrors),
        },
      },
    },
    [`${BASE}/rebuild`]: {
      post: {
        summary: 'Rebuild the index from the storage root',
        operationId: 'rebuildIndex',
        description:
          'soft: upsert from each file (attributes, else filename and recomputed hash); rows of vanished files are flagged corrupted. hard: empty the index first. A soft rebuild with more per-file errors than rebuild_error_threshold escalates to hard.',
        security,
        parameters: [
          {
            name: 'mode',
            in: 'query',
            required: false,
            schema: { type: 'string', enum: ['soft', 'hard'], default: 'soft' },
          },
        ],
        responses: {
          '200': successResponse('What ran and the counts', ref('RebuildReport')),
          ...errorResponses({ 400: 'Invalid mode', ...authErrors }),
        },
      },
    },
    [`${BASE}/asset/{hash}`]: {
      delete: {
        summary: 'Purge an asset for good: file, thumbnails, attributes and row',
        operationId: 'purgeAsset',
        security,
        parameters: [hashParameter()],
        responses: {
          '200': successResponse('Purged', { const: 'purged' }),
          ...errorResponses({ 400: 'Malformed hash', ...authErrors, 404: 'Unknown hash' }),
        },
      },
    },
  },
};
