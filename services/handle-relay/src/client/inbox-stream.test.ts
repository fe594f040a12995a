import { followInbox, type InboxMessage } from './inbox-stream.js';
import { generateKeyPair } from './keys.js';

/**
 * A stream answer that sends `frames` and then stays open, silent, until `signal` aborts:
 * then, as with fetch, reading its body fails.
 */
function silentAfter(
  signal: AbortSignal | null | undefined,
  frames: string[],
  headers: Record<string, string> = {},
): Response {
  const encoder = new TextEncoder();
  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      for (const frame of frames) controller.enqueue(encoder.encode(frame));
      signal?.addEventListener('abort', () => controller.error(new Error('aborted')));
    },
  });
  return new Response(body, {
    status: 200,
    headers: { 'Content-Type': 'text/event-stream', ...headers },
  });
}

const MESSAGE = { seq: 6, envelope: 'x', created_at: '2026-11-22T09:00:00.000Z' };

describe('followInbox', () => {
  it('reconnects a stream that falls silent, resuming where the first one began', async () => {
    const stop = new AbortController();
    const requests: { lastEventId: string | null; at: number }[] = [];
    const answers = [
      (signal?: AbortSignal | null) =>
        silentAfter(signal, ['event: ping\ndata: 1700000000\n\n'], { 'X-Stream-After': '5' }),
      (signal?: AbortSignal | null) =>
        silentAfter(signal, [`id: 6\nevent: message\ndata: ${JSON.stringify(MESSAGE)}\n\n`]),
    ];
    const fakeFetch = (_url: string | URL | Request, init?: RequestInit): Promise<Response> => {
      requests.push({
        lastEventId: new Headers(init?.headers).get('Last-Event-ID'),
        at: performance.now(),
      });
      const answer = answers.shift();
      return answer ? Promise.resolve(answer(init?.signal)) : new Promise(() => undefined);
    };
    const messages: InboxMessage[] = [];
    await followInbox({
      baseUrl: 'http://relay.test',
      handle: 'alice',
      keys: generateKeyPair(),
      onMessage: (message) => {
        messages.push(message);
        stop.abort();
      },
      signal: stop.signal,
      fetch: fakeFetch,
      retryMs: 10,
      idleMs: 200,
    });
    expect(messages).toEqual([MESSAGE]);
    expect(requests.map((r) => r.lastEventId)).toEqual([null, '5']);
    // Dropped after 200 ms of silence, not before.
    expect(requests[1]!.at - requests[0]!.at).toBeGreaterThanOrEqual(200);
  });
});
