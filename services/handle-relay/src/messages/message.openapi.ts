import { handleParam } from '../handles/handle.openapi.js';
import {
  errorResponse,
  fromZod,
  jsonResponse,
  ref,
  signed,
  streamSigned,
  type OpenApiFeature,
} from '../openapi/openapi-types.js';
import {
  INBOX_DEFAULT_LIMIT,
  INBOX_MAX_LIMIT,
  MAX_CURSOR,
  sendMessageBody,
} from './message.schemas.js';

const RFC3339_MS = {
  type: 'string',
  format: 'date-time',
  pattern: '^\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}:\\d{2}\\.\\d{3}Z$',
};

/** Sending, the signed inbox and its live stream. */
export const messagesOpenApi: OpenApiFeature = {
  schemas: {
    StoredMessage: {
      type: 'object',
      required: ['seq', 'envelope', 'created_at'],
      additionalProperties: false,
      properties: {
        seq: { type: 'integer', minimum: 1 },
        envelope: { description: 'The sender’s opaque JSON value, as sent' },
        created_at: RFC3339_MS,
      },
    },
  },
  paths: {
    '/v1/messages': {
      post: {
        summary: 'Relay an envelope to a handle (no sender authentication; rate-limited)',
        operationId: 'sendMessage',
        requestBody: {
          required: true,
          content: { 'application/json': { schema: fromZod(sendMessageBody) } },
        },
        responses: {
          '201': jsonResponse('Stored', {
            type: 'object',
            required: ['seq', 'created_at'],
            additionalProperties: false,
            properties: { seq: { type: 'integer', minimum: 1 }, created_at: RFC3339_MS },
          }),
          '400': errorResponse('Malformed body, invalid handle, or another server'),
          '404': errorResponse('Unknown recipient'),
          '413': errorResponse('Envelope above 262,144 bytes (`payload_too_large`)'),
          '415': errorResponse('A body charset or `Content-Encoding` it cannot read'),
          '429': errorResponse('Rate limited (`rate_limited`, with `Retry-After`)'),
          '503': errorResponse('Shutting down (`unavailable`)'),
        },
      },
    },
    '/v1/inbox/{handle}': {
      get: {
        summary:
          'Read stored messages after a cursor (signed: GET, /v1/inbox/<handle>, since=<n>, <ts>)',
        operationId: 'readInbox',
        security: signed,
        parameters: [
          handleParam,
          {
            name: 'since',
            in: 'query',
            required: false,
            description: 'cursor: messages with a greater seq (default 0)',
            schema: { type: 'integer', minimum: 0, maximum: MAX_CURSOR, default: 0 },
          },
          {
            name: 'limit',
            in: 'query',
            required: false,
            schema: {
              type: 'integer',
              minimum: 1,
              maximum: INBOX_MAX_LIMIT,
              default: INBOX_DEFAULT_LIMIT,
            },
          },
        ],
        responses: {
          '200': jsonResponse('One page, ascending by seq', {
            type: 'object',
            required: ['messages', 'next_since', 'has_more'],
            additionalProperties: false,
            properties: {
              messages: { type: 'array', items: ref('StoredMessage') },
              next_since: { type: 'integer', description: 'last seq returned, or since' },
              has_more: { type: 'boolean' },
            },
          }),
          '400': errorResponse('Invalid handle, since or limit'),
          '401': errorResponse('X-ID-Auth missing, malformed, stale or not verifying'),
          '404': errorResponse('Not registered'),
        },
      },
    },
    '/v1/inbox/{handle}/stream': {
      get: {
        summary: 'Live inbox as Server-Sent Events (signed: GET, /v1/inbox/<handle>/stream, <ts>)',
        operationId: 'streamInbox',
        security: streamSigned,
        description:
          'Events: `message` (`id: <seq>`, data `{seq, envelope, created_at}`), `ping` every 15 s ' +
          '(data: Unix seconds), `lagged` (data `{"dropped": n}`) after more than 64 undelivered ' +
          'messages. `Last-Event-ID` (or `since`) replays stored messages after it first.',
        parameters: [
          handleParam,
          {
            name: 'since',
            in: 'query',
            required: false,
            schema: { type: 'integer', minimum: 0, maximum: MAX_CURSOR },
          },
          {
            name: 'Last-Event-ID',
            in: 'header',
            required: false,
            description: 'resume point; wins over `since`',
            schema: { type: 'integer', minimum: 0, maximum: MAX_CURSOR },
          },
        ],
        responses: {
          '200': {
            description: 'The event stream',
            headers: {
              'X-Stream-After': {
                description:
                  'the seq the stream delivers messages after: the resume point, or without ' +
                  'one the newest stored seq; a client that has seen no message yet resumes ' +
                  'from it after a drop',
                schema: { type: 'integer', minimum: 0 },
              },
            },
            content: { 'text/event-stream': { schema: { type: 'string' } } },
          },
          '400': errorResponse('Invalid handle, missing auth, or invalid resume point'),
          '401': errorResponse('auth malformed, stale or not verifying'),
          '404': errorResponse('Not registered'),
          '503': errorResponse('Shutting down'),
        },
      },
    },
  },
};
