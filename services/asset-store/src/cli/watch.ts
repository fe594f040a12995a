import { setTimeout as sleep } from 'node:timers/promises';
import type { ChangeEvent } from '../client/index.js';
import { localTime, SHORT_HASH } from './asset-table.js';
import { ApiError, CliError } from './cli-errors.js';
import type { CliIo } from './cli-io.js';
import type { StoreClient } from './store-client.js';

/** How often the store pings a quiet stream. */
const PING_MS = 15_000;
/** Waits between reconnects: the server's `retry:` first, doubling up to this. */
const MAX_RETRY_MS = 10_000;

/** One message of a Server-Sent Events stream (the fields `watch` reads). */
interface SseMessage {
  id?: string;
  event?: string;
  data?: string;
  retry?: number;
}

/**
 * Splits a Server-Sent Events body into messages by the SSE rules (a field per line, a
 * blank line ends a message, comments dropped), as the chunks come.
 */
export async function* sseMessages(
  body: AsyncIterable<Buffer | string>,
): AsyncGenerator<SseMessage> {
  const decoder = new TextDecoder();
  let buffer = '';
  let current: SseMessage = {};
  for await (const chunk of body) {
    buffer += typeof chunk === 'string' ? chunk : decoder.decode(chunk, { stream: true });
    let nl: number;
    while ((nl = buffer.search(/\r\n|\n|\r/)) >= 0) {
      const line = buffer.slice(0, nl);
      buffer = buffer.slice(nl + (buffer.startsWith('\r\n', nl) ? 2 : 1));
      if (line === '') {
        if (Object.keys(current).length > 0) yield current;
        current = {};
        continue;
      }
      const colon = line.indexOf(':');
      if (colon === 0) continue;
      const field = colon < 0 ? line : line.slice(0, colon);
      const value = colon < 0 ? '' : line.slice(colon + 1).replace(/^ /, '');
      if (field === 'id' || field === 'event') current[field] = value;
      else if (field === 'data')
        current.data = current.data === undefined ? value : `${current.data}\n${value}`;
      else if (field === 'retry' && /^\d+$/.test(value)) current.retry = Number(value);
    }
  }
}

/** One event as a person reads it: local time, cursor, type, hash prefix, the name. */
export function eventLine(event: ChangeEvent): string {
  const record = event.data;
  const name = record ? [record.human_path, record.human_filename].filter(Boolean).join('/') : '';
  return [
    localTime(event.at),
    event.id.padStart(8),
    event.type.padEnd('asset.corrupted'.length),
    event.hash.slice(0, SHORT_HASH),
    name,
  ]
    .join('  ')
    .trimEnd();
}

/**
 * Follows `GET /changes/stream` until Ctrl-C: each event printed as it comes (a line, or
 * its JSON with `json`). The last cursor seen (the stream's opening id, then each event's)
 * is kept, so after a dropped connection or a restart of the store it reconnects with
 * `Last-Event-ID` and nothing is missed or printed twice. A cursor the store no longer
 * keeps (410) and refused requests (4xx) end the run, as does a store not reached at
 * all; once connected, anything else is retried.
 */
export async function watchChanges(
  client: StoreClient,
  io: CliIo,
  options: { json: boolean; after?: string },
): Promise<void> {
  let cursor = options.after;
  let retryMs = 1_000;
  let wait = retryMs;
  let announced = false;
  let lostSince: number | undefined;
  while (!io.stop.aborted) {
    try {
      const res = await client.raw('GET', client.url('/changes/stream'), {
        headers: {
          accept: 'text/event-stream',
          ...(cursor === undefined ? {} : { 'last-event-id': cursor }),
        },
        signal: io.stop,
        // The store pings every 15 s: a connection silent for three pings is dead.
        bodyTimeout: 3 * PING_MS,
      });
      if (res.statusCode !== 200) {
        const text = await res.body.text();
        throw answerError(res.statusCode, text);
      }
      for await (const message of sseMessages(res.body)) {
        if (message.retry !== undefined) retryMs = message.retry;
        if (message.id !== undefined) cursor = message.id;
        if (!announced) {
          announced = true;
          io.stderr(
            `asset-store: watching the changes after ${cursor ?? 'now'} (Ctrl-C to stop)\n`,
          );
        }
        if (lostSince !== undefined) {
          io.stderr(`asset-store: reconnected; going on after ${cursor ?? 'now'}\n`);
          lostSince = undefined;
        }
        wait = retryMs;
        if (message.data === undefined) continue;
        const event = JSON.parse(message.data) as ChangeEvent;
        io.stdout(options.json ? `${JSON.stringify(event)}\n` : `${eventLine(event)}\n`);
      }
    } catch (err) {
      if (io.stop.aborted) return;
      // A store never reached is a wrong address or a store that is down: said at once.
      if (!announced) throw err;
      if (err instanceof ApiError && err.status < 500) {
        if (err.status === 410) {
          throw new CliError(
            `cursor ${cursor}: the store no longer keeps the events after it (410); start without --after`,
          );
        }
        throw err;
      }
    }
    if (io.stop.aborted) return;
    if (lostSince === undefined) {
      lostSince = Date.now();
      io.stderr(`asset-store: connection lost; reconnecting after ${cursor ?? 'now'}\n`);
    }
    try {
      await sleep(wait, undefined, { signal: io.stop });
    } catch {
      return;
    }
    wait = Math.min(wait * 2, MAX_RETRY_MS);
  }
}

/** An error answer's message (the envelope's, when it is one). */
function answerError(status: number, text: string): ApiError {
  try {
    const body = JSON.parse(text) as { error?: unknown };
    if (typeof body.error === 'string') return new ApiError(status, body.error);
  } catch {
    // Not JSON: a proxy's page.
  }
  return new ApiError(status, text.slice(0, 200));
}
