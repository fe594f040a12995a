import { createParser } from 'eventsource-parser';
import type { components } from '../../src/client/index.js';
import { API, authHeaders } from './api.js';
import { byId } from './dom.js';

/** One event of the change feed (contract: "asset-store: changes and webhooks"). */
export type ChangeEvent = components['schemas']['ChangeEvent'];

/** What the console does with the stream. */
export interface LiveHooks {
  /** Each event, in commit order, once (a resumed stream goes on after the last one seen). */
  event: (event: ChangeEvent) => void;
  /**
   * The stream is open and did not resume (the first connection, or a cursor past
   * retention): changes since the view loaded may have been missed, so it loads again.
   */
  fresh: () => void;
}

/** The longest wait between attempts while the store does not answer. */
const MAX_RETRY_MS = 30_000;

/**
 * Follows `GET /changes/stream` until `stop` is called. Read with `fetch` and a Server-Sent
 * Events parser rather than `EventSource`, which cannot send the `Authorization` header an
 * `api_token` asks for; it reconnects the same way (after the server's `retry:`, backing off
 * while it fails) and resumes with `Last-Event-ID`, so no event is lost across a restart of
 * the store. `#live` says whether the console is following.
 */
export function followChanges(hooks: LiveHooks): () => void {
  const abort = new AbortController();
  const indicator = byId('live');
  const show = (state: 'connecting' | 'open' | 'closed', text: string) => {
    indicator.dataset.state = state;
    indicator.textContent = text;
  };
  let lastId: string | undefined;
  let retryMs = 1000;
  let failures = 0;

  const connect = async (): Promise<void> => {
    show('connecting', failures > 0 ? 'Reconnecting…' : 'Connecting…');
    const headers: Record<string, string> = { Accept: 'text/event-stream', ...authHeaders() };
    if (lastId !== undefined) headers['Last-Event-ID'] = lastId;
    const res = await fetch(`${API}/changes/stream`, {
      headers,
      cache: 'no-store',
      signal: abort.signal,
    });
    if (res.status === 410) {
      // Away longer than the feed keeps events: start from now and load the view again.
      lastId = undefined;
      throw new Error('cursor gone');
    }
    if (!res.ok || !res.body) throw new Error(`stream answered ${res.status}`);
    failures = 0;
    show('open', 'Live');
    if (lastId === undefined) hooks.fresh();
    const parser = createParser({
      onEvent: (message) => {
        if (message.id === undefined) return;
        lastId = message.id;
        hooks.event(JSON.parse(message.data) as ChangeEvent);
      },
      onRetry: (ms) => (retryMs = ms),
    });
    const reader = res.body.pipeThrough(new TextDecoderStream()).getReader();
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return;
      parser.feed(value);
    }
  };

  void (async () => {
    while (!abort.signal.aborted) {
      try {
        await connect();
      } catch {
        failures++;
      }
      if (abort.signal.aborted) return;
      show('closed', 'Offline: reconnecting');
      const wait = failures === 0 ? retryMs : retryMs * 2 ** Math.min(failures - 1, 5);
      await new Promise((resolve) => setTimeout(resolve, Math.min(MAX_RETRY_MS, wait)));
    }
  })();
  return () => abort.abort();
}
