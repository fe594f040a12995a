import { RelayClientError } from './http-client.js';
import type { KeyPair } from './keys.js';
import { authLines, signedAuthValue, unixNow } from './signing.js';

/** A message as the relay delivers it (inbox pages and stream events alike). */
export interface InboxMessage {
  seq: number;
  envelope: unknown;
  created_at: string;
}

/** One raw Server-Sent Event. */
export interface StreamEvent {
  id?: string;
  event: string;
  data: string;
}

/** How to follow an inbox stream. */
export interface FollowOptions {
  baseUrl: string;
  handle: string;
  keys: KeyPair;
  /** Resume after this seq (sent as `Last-Event-ID`); omitted: only new messages. */
  since?: number;
  onMessage: (message: InboxMessage) => void;
  /** Every other event (`ping`, `lagged`) and each (re)connect, for callers that care. */
  onEvent?: (event: StreamEvent | { event: 'connected'; data: string }) => void;
  signal: AbortSignal;
  fetch?: typeof fetch;
  /** Wait before reconnecting after a drop. */
  retryMs?: number;
  /**
   * A stream silent this long counts as dropped and is reconnected: the relay pings every
   * 15 s, so a connection cut without a word (a network gone, a proxy stalled) shows as
   * missing pings. Default 45 s, three pings.
   */
  idleMs?: number;
}

/** Three of the relay's 15 s pings. */
const IDLE_MS = 45_000;

/** Splits a text stream into SSE events (fields `id`, `event`, `data`; comments skipped). */
function parseBlock(block: string): StreamEvent {
  const ev: StreamEvent = { event: 'message', data: '' };
  const data: string[] = [];
  for (const line of block.split('\n')) {
    if (line === '' || line.startsWith(':')) continue;
    const colon = line.indexOf(':');
    const field = colon < 0 ? line : line.slice(0, colon);
    const value = colon < 0 ? '' : line.slice(colon + 1).replace(/^ /, '');
    if (field === 'id') ev.id = value;
    else if (field === 'event') ev.event = value;
    else if (field === 'data') data.push(value);
  }
  ev.data = data.join('\n');
  return ev;
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(resolve, ms);
    signal.addEventListener('abort', () => {
      clearTimeout(timer);
      resolve();
    });
  });
}

/**
 * Follows `GET /v1/inbox/{handle}/stream` until `signal` aborts. Each connection is signed
 * afresh (the relay checks the timestamp at connect time); after a drop it reconnects
 * with `Last-Event-ID` set to the last seq seen (or, before the first message, the one the
 * first stream began after), so the relay replays what was missed and nothing arrives
 * twice. A stream silent for `idleMs` is dropped and reconnected the same way. A 4xx
 * answer (bad key, unknown handle) ends it with the error.
 * Uses fetch and TextDecoder only, so it runs in browsers too.
 */
export async function followInbox(options: FollowOptions): Promise<void> {
  const doFetch = options.fetch ?? fetch;
  const base = options.baseUrl.replace(/\/+$/, '');
  let lastSeq = options.since;
  while (!options.signal.aborted) {
    // This connection's own abort: the caller's, or the watch for silence below.
    const connection = new AbortController();
    const forward = () => connection.abort();
    options.signal.addEventListener('abort', forward, { once: true });
    let silence: ReturnType<typeof setTimeout> | undefined;
    const heard = () => {
      clearTimeout(silence);
      silence = setTimeout(() => connection.abort(), options.idleMs ?? IDLE_MS);
    };
    try {
      const auth = signedAuthValue(
        options.keys.secretKey,
        authLines.stream(options.handle),
        unixNow(),
      );
      // Silence counts from the request on: a relay that accepts and never answers too.
      heard();
      const headers: Record<string, string> = { Accept: 'text/event-stream' };
      if (lastSeq !== undefined) headers['Last-Event-ID'] = String(lastSeq);
      const res = await doFetch(
        `${base}/v1/inbox/${encodeURIComponent(options.handle)}/stream?auth=${encodeURIComponent(auth)}`,
        { headers, signal: connection.signal },
      );
      if (!res.ok || !res.body) {
        const text = await res.text();
        const err = (JSON.parse(text || '{}') as { error?: { code?: string; message?: string } })
          .error;
        const failure = new RelayClientError(
          res.status,
          err?.code ?? 'unknown',
          err?.message ?? `HTTP ${res.status}`,
        );
        if (res.status < 500) throw failure;
      } else {
        // Without a resume point the relay starts at the newest message and says which:
        // resuming from there after a drop replays what was sent while it was down.
        const start = res.headers.get('X-Stream-After');
        if (lastSeq === undefined && start !== null && /^\d+$/.test(start)) lastSeq = Number(start);
        options.onEvent?.({ event: 'connected', data: String(lastSeq ?? '') });
        const decoder = new TextDecoder();
        const reader = (res.body as ReadableStream<Uint8Array>).getReader();
        let buffer = '';
        heard();
        for (;;) {
          const { done, value } = await reader.read();
          if (done) break;
          heard();
          buffer += decoder.decode(value, { stream: true });
          let end: number;
          while ((end = buffer.indexOf('\n\n')) >= 0) {
            const ev = parseBlock(buffer.slice(0, end));
            buffer = buffer.slice(end + 2);
            if (ev.event === 'message') {
              const message = JSON.parse(ev.data) as InboxMessage;
              lastSeq = message.seq;
              options.onMessage(message);
            } else {
              options.onEvent?.(ev);
            }
          }
        }
      }
    } catch (err) {
      if (options.signal.aborted) return;
      if (err instanceof RelayClientError) throw err;
    } finally {
      clearTimeout(silence);
      options.signal.removeEventListener('abort', forward);
    }
    await sleep(options.retryMs ?? 1_000, options.signal);
  }
}
