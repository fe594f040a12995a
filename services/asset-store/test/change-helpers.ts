import http from 'node:http';
import type { AddressInfo } from 'node:net';
import request from 'supertest';
import type { App } from '../src/app.js';
import type { ChangeEvent } from '../src/changes/change.service.js';

/** `GET /changes` with this query, its events and `next`; fails on any other status than 200. */
export async function changesPage(
  app: App,
  query: Record<string, string> = {},
): Promise<{ events: ChangeEvent[]; next: string }> {
  const res = await request(app).get('/api/v1/can/0/changes').query(query);
  if (res.status !== 200) throw new Error(`changes: ${res.status} ${res.text}`);
  return (res.body as { data: { events: ChangeEvent[]; next: string } }).data;
}

/** Every event of the feed, paging with `limit`. */
export async function allChanges(app: App, limit = 1000): Promise<ChangeEvent[]> {
  const all: ChangeEvent[] = [];
  let after: string | undefined;
  for (;;) {
    const page = await changesPage(app, { limit: String(limit), ...(after ? { after } : {}) });
    all.push(...page.events);
    if (page.events.length < limit) return all;
    after = page.next;
  }
}

/** An app listening on 127.0.0.1 on a free port, for clients that need a real socket. */
export async function listening(app: App): Promise<{ url: string; close(): Promise<void> }> {
  const server = http.createServer(app);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** One Server-Sent Events message as read off the wire (a comment has only `comment`). */
export interface SseMessage {
  id?: string;
  event?: string;
  data?: string;
  comment?: string;
}

/**
 * A Server-Sent Events client reading a stream as it comes, parsed by the SSE rules
 * (fields per line, a blank line ends a message), for tests that watch it.
 */
export class SseReader {
  readonly messages: SseMessage[] = [];
  status = 0;
  #waiters: (() => void)[] = [];
  readonly #abort = new AbortController();
  #done: Promise<void> = Promise.resolve();

  static async open(url: string, headers: Record<string, string> = {}): Promise<SseReader> {
    const reader = new SseReader();
    const res = await fetch(url, { headers, signal: reader.#abort.signal });
    reader.status = res.status;
    if (res.status === 200 && res.body) reader.#done = reader.#read(res.body);
    else reader.body = await res.text();
    return reader;
  }

  body = '';

  /** The events (messages with data) so far; the opening message has only an id. */
  get events(): SseMessage[] {
    return this.messages.filter((m) => m.data !== undefined);
  }

  /** Resolves once `test` holds over the messages, or rejects after `ms`. */
  async until(test: (messages: SseMessage[]) => boolean, ms = 10_000): Promise<void> {
    const deadline = Date.now() + ms;
    while (!test(this.messages)) {
      const left = deadline - Date.now();
      if (left <= 0) {
        throw new Error(
          `stream: condition not met in ${ms} ms; got ${JSON.stringify(this.messages)}`,
        );
      }
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, left);
        this.#waiters.push(() => {
          clearTimeout(timer);
          resolve();
        });
      });
    }
  }

  async close(): Promise<void> {
    this.#abort.abort();
    await this.#done;
  }

  async #read(body: ReadableStream<Uint8Array>): Promise<void> {
    const decoder = new TextDecoder();
    let buffer = '';
    let current: SseMessage = {};
    try {
      for await (const chunk of body) {
        buffer += decoder.decode(chunk, { stream: true });
        let nl: number;
        while ((nl = buffer.indexOf('\n')) >= 0) {
          const line = buffer.slice(0, nl);
          buffer = buffer.slice(nl + 1);
          if (line === '') {
            if (Object.keys(current).length > 0) this.messages.push(current);
            current = {};
            const waiters = this.#waiters;
            this.#waiters = [];
            waiters.forEach((w) => w());
            continue;
          }
          const colon = line.indexOf(':');
          const field = colon < 0 ? line : line.slice(0, colon);
          const value = colon < 0 ? '' : line.slice(colon + 1).replace(/^ /, '');
          if (field === '') current.comment = value;
          else if (field === 'id' || field === 'event' || field === 'data') current[field] = value;
        }
      }
    } catch {
      // Aborted by close().
    }
  }
}
