import { API_BASE } from '../api-base.js';
import { EVENT_TYPES } from '../changes/event-types.js';
import {
  errorResponses,
  fromZod,
  ref,
  successResponse,
  type JsonObject,
  type OpenApiFeature,
} from '../openapi/openapi.js';
import { createWebhookBody } from './webhook.schemas.js';

const security = [{ adminToken: [] }];
const adminErrors = errorResponses({
  401: 'Missing or wrong bearer token',
  403: 'No admin_token configured',
});
const idParameter: JsonObject = {
  name: 'id',
  in: 'path',
  required: true,
  description: 'The webhook id.',
  schema: { type: 'string', format: 'uuid' },
};
const notFound = errorResponses({ 400: 'The id is not a webhook id', 404: 'No such webhook' });

const webhookProperties = {
  id: { type: 'string', format: 'uuid' },
  url: { type: 'string' },
  types: {
    description: 'The event types delivered; null: every type.',
    oneOf: [{ type: 'array', items: { type: 'string', enum: [...EVENT_TYPES] } }, { type: 'null' }],
  },
  created_at: { type: 'integer', minimum: 0, description: 'Epoch ms.' },
};

/** `/admin/webhooks` (docs/changes.md, "Webhooks"). */
export const webhookOpenApi: OpenApiFeature = {
  paths: {
    [`${API_BASE}/admin/webhooks`]: {
      post: {
        summary: 'Subscribe a URL to the change feed (Standard Webhooks)',
        description:
          'Each later event of the given types (default all) is POSTed, signed per the Standard Webhooks specification with the secret answered here once, retried with exponential backoff for webhook_retry_hours. A URL whose host resolves to a private, loopback or link-local address is refused unless webhook_allow_private.',
        operationId: 'createWebhook',
        security,
        requestBody: {
          required: true,
          content: { 'application/json': { schema: fromZod(createWebhookBody) } },
        },
        responses: {
          '201': successResponse('The webhook, with its secret', ref('WebhookCreated')),
          ...errorResponses({
            400: 'A bad field (named), or a private target',
            413: 'Body over 16 KiB',
            415: 'Body in an encoding or charset that cannot be read',
          }),
          ...adminErrors,
        },
      },
      get: {
        summary: 'The webhooks (without their secrets)',
        operationId: 'listWebhooks',
        security,
        responses: {
          '200': successResponse('Every webhook, oldest first', {
            type: 'array',
            items: ref('Webhook'),
          }),
          ...adminErrors,
        },
      },
    },
    [`${API_BASE}/admin/webhooks/{id}`]: {
      delete: {
        summary: 'Delete a webhook, its queue and its log',
        operationId: 'deleteWebhook',
        security,
        parameters: [idParameter],
        responses: {
          '200': successResponse('Deleted', { const: 'deleted' }),
          ...notFound,
          ...adminErrors,
        },
      },
    },
    [`${API_BASE}/admin/webhooks/{id}/deliveries`]: {
      get: {
        summary: 'The webhook’s recent delivery attempts, newest first',
        operationId: 'listWebhookDeliveries',
        security,
        parameters: [idParameter],
        responses: {
          '200': successResponse('Up to 100 attempts', {
            type: 'array',
            items: ref('WebhookDelivery'),
          }),
          ...notFound,
          ...adminErrors,
        },
      },
    },
  },
  schemas: {
    Webhook: {
      type: 'object',
      required: ['id', 'url', 'types', 'created_at'],
      additionalProperties: false,
      properties: webhookProperties,
    },
    WebhookCreated: {
      type: 'object',
      required: ['id', 'url', 'types', 'secret', 'created_at'],
      additionalProperties: false,
      properties: {
        ...webhookProperties,
        secret: {
          type: 'string',
          pattern: '^whsec_[A-Za-z0-9+/]{43}=$',
          description: '`whsec_` and the base64 of 32 random bytes: the signing key.',
        },
      },
    },
    WebhookDelivery: {
      type: 'object',
      required: ['event_id', 'status', 'error', 'at', 'duration_ms'],
      additionalProperties: false,
      properties: {
        event_id: { type: 'string' },
        status: { type: ['integer', 'null'], description: 'The status answered, if any.' },
        error: { type: ['string', 'null'], description: 'Why it failed; null when delivered.' },
        at: { type: 'integer', minimum: 0 },
        duration_ms: { type: 'integer', minimum: 0 },
      },
    },
  },
};
