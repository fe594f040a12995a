import type { SendBody, Sender, SentAnswer } from './http-send.js';
import { parseOrigin } from './http-send.js';
import { senderFetch } from './sender-fetch.js';

/** A sender that records what it is asked to send and answers as told. */
function recordingSender(answer: SentAnswer) {
  const sent: { method: string; path: string; headers: Record<string, string>; body?: string }[] =
    [];
  const sender: Sender = {
    send: (method, path, headers, body: SendBody | undefined) => {
      sent.push({ method, path, headers, ...(body === undefined ? {} : { body: String(body) }) });
      return Promise.resolve(answer);
    },
    close: () => undefined,
  };
  return { sender, sent };
}

describe('senderFetch', () => {
  it('sends the request below the base URL path, with its headers and body', async () => {
    const { sender, sent } = recordingSender({ statusCode: 200, text: '{"status":"success"}' });
    const fetch = senderFetch(sender, parseOrigin('http://127.0.0.1:9/store/'));
    const res = await fetch(
      new Request('http://127.0.0.1:9/store/api/v1/can/0/list?limit=1', {
        method: 'PATCH',
        headers: { authorization: 'Bearer t', 'content-type': 'application/json' },
        body: '{"tags":["a"]}',
      }),
    );
    expect(sent).toEqual([
      {
        method: 'PATCH',
        path: '/api/v1/can/0/list?limit=1',
        headers: { authorization: 'Bearer t', 'content-type': 'application/json' },
        body: '{"tags":["a"]}',
      },
    ]);
    expect(res.status).toBe(200);
    expect(await res.text()).toBe('{"status":"success"}');
  });

  it('sends no body for a GET, and answers a 204 without one', async () => {
    const { sender, sent } = recordingSender({ statusCode: 204, text: '' });
    const fetch = senderFetch(sender, parseOrigin('http://127.0.0.1:9'));
    const res = await fetch(new Request('http://127.0.0.1:9/x'));
    expect(sent).toEqual([{ method: 'GET', path: '/x', headers: {} }]);
    expect(res.status).toBe(204);
    expect(res.body).toBeNull();
  });

  it('passes an error answer on with its status and text', async () => {
    const { sender } = recordingSender({ statusCode: 404, text: '{"status":"error"}' });
    const res = await senderFetch(sender, parseOrigin('http://h'))(new Request('http://h/y'));
    expect(res.status).toBe(404);
    expect(await res.text()).toBe('{"status":"error"}');
  });
});
