import { API_BASE } from '../api-base.js';
import {
  errorResponses,
  ref,
  successResponse,
  type JsonObject,
  type OpenApiFeature,
} from '../openapi/openapi.js';
import { EVENT_TYPES } from './event-types.js';

const cursor = { type: 'string', pattern: '^(0|[1-9][0-9]{0,15})$' };

const afterParameter = (description: string): JsonObject => ({
  name: 'after',
  in: 'query',
  required: false,
  description,
  schema: cursor,
});

const gone = errorResponses({
  410: 'The cursor is older than changes_retention_days: events after it are no longer kept',
});

/** `GET /changes` and `GET /changes/stream` (docs/changes.md). */
export const changeOpenApi: OpenApiFeature = {
  paths: {
    [`${API_BASE}/changes`]: {
      get: {
        summary: 'The change feed: events after a cursor, in commit order',
        description:
          'Every change to the index is an event written in the same transaction. Without `after`, from the oldest event kept. `next` is the last event’s id, or the cursor given when there is none.',
        operationId: 'listChanges',
        parameters: [
          afterParameter('An event id (cursor) from this feed; only later events.'),
          {
            name: 'limit',
            in: 'query',
            required: false,
            description: 'Events per page.',
            schema: { type: 'integer', minimum: 1, maximum: 1000, default: 100 },
          },
        ],
        responses: {
          '200': successResponse('One page of events', ref('ChangePage')),
          ...errorResponses({ 400: 'A parameter is invalid (named in the message)' }),
          ...gone,
        },
      },
    },
    [`${API_BASE}/changes/stream`]: {
      get: {
        summary: 'The change feed live, as Server-Sent Events',
        description:
          '`id:` the event’s id, `event:` its type, `data:` the event JSON. Resumes after `Last-Event-ID` (wins) or `?after=`; without either, from now. The first message has no data, only `id:`: the cursor the stream starts after, so a client that reconnects before any event resumes from there. A comment line every 15 s.',
        operationId: 'streamChanges',
        parameters: [
          afterParameter('Resume after this event id.'),
          {
            name: 'Last-Event-ID',
            in: 'header',
            required: false,
            description: 'Resume after this event id (what an EventSource sends on reconnecting).',
            schema: cursor,
          },
        ],
        responses: {
          '200': {
            description: 'The stream (never ends on its own)',
            content: { 'text/event-stream': { schema: { type: 'string' } } },
          },
          ...errorResponses({ 400: 'The cursor is not one this feed gave' }),
          ...gone,
        },
      },
    },
  },
  schemas: {
    ChangeEvent: {
      type: 'object',
      required: ['id', 'type', 'hash', 'at', 'data'],
      additionalProperties: false,
      properties: {
        id: { ...cursor, description: 'The event’s cursor (opaque).' },
        type: { type: 'string', enum: [...EVENT_TYPES] },
        hash: { type: 'string', pattern: '^[0-9a-f]{64}$' },
        at: { type: 'integer', minimum: 0, description: 'When, epoch ms.' },
        data: {
          description: 'The record after the change; null for asset.purged.',
          oneOf: [ref('AssetRecord'), { type: 'null' }],
        },
      },
    },
    ChangePage: {
      type: 'object',
      required: ['events', 'next'],
      additionalProperties: false,
      properties: {
        events: { type: 'array', items: ref('ChangeEvent') },
        next: { ...cursor, description: 'Where the next page starts.' },
      },
    },
  },
};
