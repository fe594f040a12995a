import { RelayClient } from './http-client.js';
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

/** Follows alice's inbox through `fakeFetch` (200 ms of silence drops a stream) until a message. */
async function followUntilAMessage(fakeFetch: typeof fetch): Promise<InboxMessage[]> {
  const stop = new AbortController();
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
  return messages;
}

describe('followInbox', () => {
  it('reconnects a stream that falls silent, resuming where the first one began', async () => {
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
    const messages = await followUntilAMessage(fakeFetch);
    expect(messages).toEqual([MESSAGE]);
    expect(requests.map((r) => r.lastEventId)).toEqual([null, '5']);
    // Dropped after 200 ms of silence, not before.
    expect(requests[1]!.at - requests[0]!.at).toBeGreaterThanOrEqual(200);
  });

  it('also gives up on a relay that accepts the request and never answers', async () => {
    let calls = 0;
    const fakeFetch = (_url: string | URL | Request, init?: RequestInit): Promise<Response> => {
      calls += 1;
      if (calls === 1) {
        return new Promise((_resolve, reject) =>
          init?.signal?.addEventListener('abort', () => reject(new Error('aborted'))),
        );
      }
      return Promise.resolve(
        silentAfter(init?.signal, [`id: 6\nevent: message\ndata: ${JSON.stringify(MESSAGE)}\n\n`]),
      );
    };
    const messages = await followUntilAMessage(fakeFetch);
    expect(calls).toBe(2);
    expect(messages).toEqual([MESSAGE]);
  });
});

describe('RelayClient.sendJson', () => {
  it('refuses text that is not one JSON value, sending nothing', async () => {
    let calls = 0;
    const client = new RelayClient({
      baseUrl: 'http://relay.test',
      fetch: () => {
        calls += 1;
        return Promise.resolve(new Response('{}'));
      },
    });
    await expect(client.sendJson('alice', '1,"to":"mallory"')).rejects.toThrow(SyntaxError);
    expect(calls).toBe(0);
  });
});
