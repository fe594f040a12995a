import { API_BASE } from '../api-base.js';
import { errorResponses, ref, successResponse, type OpenApiFeature } from '../openapi/openapi.js';

const BASE = `${API_BASE}/admin/jobs`;
const security = [{ adminToken: [] }];
const authErrors = {
  401: 'Missing or wrong bearer token',
  403: 'No admin_token configured',
};
const count = { type: 'integer', minimum: 0 };
const countOrNull = { type: ['integer', 'null'], minimum: 0 };
const rateOrNull = { type: ['number', 'null'], minimum: 0 };
const idParameter = {
  name: 'id',
  in: 'path',
  required: true,
  schema: { type: 'string', format: 'uuid' },
};

/** A backfill job's result (`media-backfill.ts`). */
const backfillReport = {
  type: 'object',
  required: ['probed', 'images', 'unreadable', 'errors'],
  additionalProperties: false,
  properties: {
    probed: { ...count, description: 'Images without their facts, probed' },
    images: { ...count, description: 'Images read: width and height now known' },
    unreadable: { ...count, description: 'Images sharp could not read (facts stay null)' },
    errors: { ...count, description: 'Images left for a later run (file unreadable)' },
  },
};

const job = {
  type: 'object',
  additionalProperties: false,
  required: [
    'id',
    'kind',
    'status',
    'started_at',
    'finished_at',
    'total',
    'done',
    'bytes_total',
    'bytes_done',
    'rate',
    'bytes_rate',
    'eta_s',
    'result',
    'error',
  ],
  properties: {
    id: { type: 'string', format: 'uuid' },
    kind: { type: 'string', enum: ['verify', 'rebuild', 'backfill'] },
    status: { type: 'string', enum: ['running', 'done', 'failed', 'cancelled'] },
    started_at: { ...count, description: 'Epoch milliseconds' },
    finished_at: { ...countOrNull, description: 'Epoch milliseconds; null while running' },
    total: { ...countOrNull, description: 'Files to do; null until counted' },
    done: { ...count, description: 'Files done' },
    bytes_total: { ...countOrNull, description: 'Bytes to read (verify); null for rebuild' },
    bytes_done: count,
    rate: { ...rateOrNull, description: 'Files per second since the start' },
    bytes_rate: { ...rateOrNull, description: 'Bytes per second since the start (verify)' },
    eta_s: { ...countOrNull, description: 'Seconds left at the rate so far; null unless running' },
    result: {
      anyOf: [ref('VerifyReport'), ref('RebuildReport'), ref('BackfillReport'), { type: 'null' }],
      description:
        'Once ended: what POST /admin/verify or /admin/rebuild would answer (the counts so far when cancelled); null before',
    },
    error: { type: ['string', 'null'], description: 'Why the job failed' },
  },
};

/** `/admin/jobs`: verify and rebuild as background jobs with live progress. */
export const jobOpenApi: OpenApiFeature = {
  schemas: { Job: job, BackfillReport: backfillReport },
  paths: {
    [BASE]: {
      post: {
        operationId: 'startJob',
        summary: 'Start a verify, rebuild or backfill job; answers at once with the job',
        security,
        requestBody: {
          required: true,
          content: {
            'application/json': {
              schema: {
                oneOf: [
                  {
                    type: 'object',
                    required: ['kind'],
                    additionalProperties: false,
                    properties: { kind: { const: 'verify' } },
                  },
                  {
                    type: 'object',
                    required: ['kind'],
                    additionalProperties: false,
                    properties: {
                      kind: { const: 'rebuild' },
                      mode: { type: 'string', enum: ['soft', 'hard'], default: 'soft' },
                    },
                  },
                  {
                    type: 'object',
                    required: ['kind'],
                    additionalProperties: false,
                    properties: { kind: { const: 'backfill' } },
                  },
                ],
              },
            },
          },
        },
        responses: {
          '202': successResponse('The job, running', ref('Job')),
          ...errorResponses({
            400: 'Invalid body (the field is named)',
            ...authErrors,
            409: 'A job of this kind is already running',
            413: 'Body over max_json_bytes',
            415: 'A body charset other than UTF-8',
            503: 'The service is stopping',
          }),
        },
      },
      get: {
        operationId: 'listJobs',
        summary: 'The 50 most recent jobs, newest first',
        security,
        responses: {
          '200': successResponse('Jobs', { type: 'array', items: ref('Job') }),
          ...errorResponses(authErrors),
        },
      },
    },
    [`${BASE}/{id}`]: {
      get: {
        operationId: 'getJob',
        summary: 'One job, with live progress while it runs',
        security,
        parameters: [idParameter],
        responses: {
          '200': successResponse('The job', ref('Job')),
          ...errorResponses({ 400: 'Malformed id', ...authErrors, 404: 'Unknown job' }),
        },
      },
      delete: {
        operationId: 'cancelJob',
        summary: 'Cancel a running job; answers once it has stopped (an ended job as it is)',
        security,
        parameters: [idParameter],
        responses: {
          '200': successResponse('The job, cancelled or as it ended', ref('Job')),
          ...errorResponses({ 400: 'Malformed id', ...authErrors, 404: 'Unknown job' }),
        },
      },
    },
  },
};
