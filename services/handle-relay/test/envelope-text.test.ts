import { gzipSync } from 'node:zlib';
import { sql } from 'kysely';
import request from 'supertest';
import { authLines, signedAuthValue } from '../src/client/index.js';
import { registerHandle, type RegisteredHandle } from './handle-factories.js';
import { openSse, type SseClient } from './sse-client.js';
import { createTestApp, listenOnLoopback, SETUP_TIMEOUT_MS } from './test-app.js';
import type { ListeningApp, TestApp } from './test-app.js';

// The relay is opaque to envelopes: what a sender wrote comes back out of the inbox and the
// stream as written, but for whitespace outside strings. A parse and stringify would not do:
// it rounds big integers, turns 1e400 into null, 1.50 into 1.5 and -0 into 0.
const PATHS = [
  ['the send lane', '/v1/messages'],
  ['the Express route', '/v1/messages?via=express'],
] as const;

let t: TestApp;
let listening: ListeningApp;
let baseUrl: string;
const streams: SseClient[] = [];

beforeAll(async () => {
  t = await createTestApp('envelope_text');
  listening = await listenOnLoopback(t.app);
  baseUrl = listening.url;
}, SETUP_TIMEOUT_MS);
afterEach(() => {
  for (const s of streams.splice(0)) s.close();
});
afterAll(async () => {
  await listening.close();
  await t.close();
}, SETUP_TIMEOUT_MS);

async function openStream(owner: RegisteredHandle): Promise<SseClient> {
  const auth = signedAuthValue(owner.keys.secretKey, authLines.stream(owner.handle));
  const path = `/v1/inbox/${owner.handle}/stream?auth=${encodeURIComponent(auth)}`;
  const stream = await openSse(baseUrl, path);
  streams.push(stream);
  return stream;
}

async function storedEnvelopes(recipient: string): Promise<string[]> {
  const { rows } = await sql<{ envelope: string }>`
    select envelope from handle_relay.message where recipient = ${recipient} order by seq
  `.execute(t.store.db);
  return rows.map((r) => r.envelope);
}

function inboxText(owner: RegisteredHandle): Promise<string> {
  const auth = signedAuthValue(owner.keys.secretKey, authLines.inbox(owner.handle, 0));
  return request(t.app)
    .get(`/v1/inbox/${owner.handle}`)
    .set('X-ID-Auth', auth)
    .expect(200)
    .then((res) => res.text);
}

/** Posts a body and answers the status and parsed JSON response. */
type Send = (body: string) => Promise<{ status: number; body: unknown }>;

/** Posts raw bytes with fetch: supertest may serialize a Buffer body as JSON. */
function postBytes(headers: Record<string, string>, encode: (body: string) => Buffer): Send {
  return async (body) => {
    const res = await fetch(`${baseUrl}/v1/messages`, {
      method: 'POST',
      headers,
      body: encode(body),
    });
    return { status: res.status, body: await res.json() };
  };
}

/**
 * Sends `body` (its `BOB` replaced by a fresh recipient's handle), then checks that the
 * database row, the inbox page and the stream frame all carry `stored`.
 */
async function expectRelayedAs(send: Send, body: string, stored: string): Promise<void> {
  const bob = await registerHandle(t.app, t.config.server);
  const stream = await openStream(bob);
  const res = await send(body.replace('BOB', bob.handle));
  expect(res.status).toBe(201);
  const { seq, created_at } = res.body as { seq: number; created_at: string };
  const message = `{"seq":${seq},"envelope":${stored},"created_at":"${created_at}"}`;
  expect(await storedEnvelopes(bob.handle)).toEqual([stored]);
  expect(await inboxText(bob)).toBe(
    `{"messages":[${message}],"next_since":${seq},"has_more":false}`,
  );
  await stream.waitForMessages(1);
  expect(stream.text).toContain(`id: ${seq}\nevent: message\ndata: ${message}\n\n`);
}

const CASES: [string, string, string][] = [
  [
    'numbers a parse would change, and string escapes',
    String.raw`{"to":"BOB","envelope":{"n":12345678901234567890,"f":1.50,"z":-0,"big":1e400,"s":"a\u00e9\n"}}`,
    String.raw`{"n":12345678901234567890,"f":1.50,"z":-0,"big":1e400,"s":"a\u00e9\n"}`,
  ],
  [
    'a pretty-printed envelope over several lines',
    '{\n  "to": "BOB",\n  "envelope": {\n    "list": [\n      1,\n      2.50\n    ],\r\n\t"text": "two  spaces, a { and a \\" stay"\n  }\n}\n',
    '{"list":[1,2.50],"text":"two  spaces, a { and a \\" stay"}',
  ],
  ['a bare number', '{"to":"BOB","envelope": 12345678901234567890 }', '12345678901234567890'],
  [
    'a bare string',
    String.raw`{"envelope":"caf\u00e9 \"quoted\" \\ ","to":"BOB"}`,
    String.raw`"caf\u00e9 \"quoted\" \\ "`,
  ],
  ['null', '{"to":"BOB","envelope":null}', 'null'],
  ['true', '{"to":"BOB", "envelope" : true }', 'true'],
  [
    'nested arrays',
    '{"to":"BOB","envelope":[ [ [], [ 1E2, -0.0 ] ], [ { } ] ]}',
    '[[[],[1E2,-0.0]],[{}]]',
  ],
  [
    'the last of duplicate envelopes, their keys read unescaped',
    String.raw`{"to":"BOB","envelope":"first","envel\u006fpe":[ "last" ]}`,
    '["last"]',
  ],
];

describe.each(PATHS)('an envelope sent through %s', (_name, path) => {
  const post = (body: string) =>
    request(t.app).post(path).set('Content-Type', 'application/json').send(body);
  const send: Send = async (body) => {
    const res = await post(body);
    return { status: res.status, body: res.body as unknown };
  };

  it.each(CASES)(
    'is stored and relayed as written, minus whitespace: %s',
    async (_case, body, stored) => {
      await expectRelayedAs(send, body, stored);
    },
  );

  it('is measured as the stored text: 262,144 bytes without whitespace pass, one more is 413', async () => {
    const bob = await registerHandle(t.app, t.config.server);
    const pretty = (n: number) => `{\n  "s" : "${'x'.repeat(n)}"\n}`;
    const atLimit = 262_144 - '{"s":""}'.length;
    const body = (n: number) => `{"to":"${bob.handle}","envelope":${pretty(n)}}`;
    await post(body(atLimit)).expect(201);
    const res = await post(body(atLimit + 1)).expect(413);
    expect(res.body).toEqual({
      error: { code: 'payload_too_large', message: 'envelope is larger than 262144 bytes' },
    });
    expect(await storedEnvelopes(bob.handle)).toEqual([`{"s":"${'x'.repeat(atLimit)}"}`]);
  });
});

describe('an envelope in a body Express decodes first', () => {
  const body = '{"to":"BOB","envelope":{ "n": 1.50e+2, "s": "caf\\u00e9 ü" }}';
  const stored = '{"n":1.50e+2,"s":"caf\\u00e9 ü"}';

  it('is stored as written when the body is gzipped', async () => {
    const send = postBytes(
      { 'Content-Type': 'application/json', 'Content-Encoding': 'gzip' },
      (text) => gzipSync(text),
    );
    await expectRelayedAs(send, body, stored);
  });

  it('is stored as written when the body is UTF-16 with a byte order mark', async () => {
    const send = postBytes({ 'Content-Type': 'application/json; charset=utf-16le' }, (text) =>
      Buffer.from(`\ufeff${text}`, 'utf16le'),
    );
    await expectRelayedAs(send, body, stored);
  });
});
