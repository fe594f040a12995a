import crypto from 'node:crypto';
import {
  authLines,
  generateKeyPair,
  primaryOf,
  signRegistration,
  signedAuthValue,
  type KeyPair,
} from '../services/handle-relay/src/client/index.js';
import { ComposeStack } from './compose-stack.js';

// The stack of docker-compose.yml as a user starts it, through its published ports.
const ASSETS = 'http://127.0.0.1:8080';
const RELAY = 'http://127.0.0.1:8081';
const API = `${ASSETS}/api/v1/can/0`;
const SERVICES = ['asset-store', 'handle-relay'] as const;
// A 1x1 PNG: enough for a real thumbnail.
const PNG = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==',
  'base64',
);

let stack: ComposeStack;
const handle = `smoke-${crypto.randomBytes(4).toString('hex')}`;
let keys: KeyPair;
let assetHash = '';
let sent = { seq: 0, created_at: '' };

beforeAll(async () => {
  stack = await ComposeStack.open(process.env.COMPOSE_PROJECT ?? 'can-services-smoke');
  await stack.compose('down', '--volumes', '--remove-orphans');
  await stack.compose('up', '--detach', '--build');
  for (const service of SERVICES) {
    const seconds = await stack.waitHealthy(service);
    console.log(`${service}: healthy ${seconds.toFixed(1)} s after its container started`);
  }
}, 900_000);

afterAll(async () => {
  await stack?.compose('down', '--volumes', '--remove-orphans');
}, 120_000);

async function json(res: Response): Promise<unknown> {
  expect(res.headers.get('content-type')).toMatch(/^application\/json/);
  return res.json();
}

function inbox(): Promise<Response> {
  return fetch(`${RELAY}/v1/inbox/${handle}?since=0`, {
    headers: { 'X-ID-Auth': signedAuthValue(keys.secretKey, authLines.inbox(handle, 0)) },
  });
}

/** Reads a Server-Sent Events body until a `message` event arrives; returns its data. */
async function nextMessage(body: ReadableStream<Uint8Array>): Promise<string> {
  const reader = body.getReader();
  const decoder = new TextDecoder();
  let text = '';
  for (;;) {
    const { value, done } = await reader.read();
    if (done) throw new Error(`stream ended before a message: ${text}`);
    text += decoder.decode(value, { stream: true });
    const frame = text.split('\n\n').find((f) => f.split('\n').includes('event: message'));
    const data = frame?.split('\n').find((line) => line.startsWith('data: '));
    if (data) return data.slice('data: '.length);
  }
}

describe('docker-compose.yml, run as a user runs it', () => {
  it('brings both services up healthy on the published ports', async () => {
    const assets = await fetch(`${ASSETS}/healthz`);
    expect(assets.status).toBe(200);
    expect(await json(assets)).toEqual({
      status: 'success',
      data: { status: 'ok', version: expect.any(String) as string },
    });
    const relay = await fetch(`${RELAY}/v1/healthz`);
    expect(relay.status).toBe(200);
    expect(await json(relay)).toEqual({
      status: 'ok',
      server: 'localhost',
      version: expect.any(String) as string,
      log_key: expect.stringMatching(/^ed25519:[0-9a-f]{64}$/) as string,
    });
  });

  it('serves the chat app the relay image carries at the relay’s `/`', async () => {
    const page = await fetch(`${RELAY}/`);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toMatch(/^text\/html/);
    const html = await page.text();
    expect(html).toContain('<title>Handle Relay</title>');
    expect(html).toContain('<script defer src="/app.js"></script>');
    expect(html).toContain('<link rel="manifest" href="/manifest.webmanifest" />');
    for (const [file, type] of [
      ['/app.js', /javascript/],
      ['/sw.js', /javascript/],
      ['/manifest.webmanifest', /^application\/manifest\+json/],
      ['/icon-192.png', /^image\/png/],
    ] as const) {
      const res = await fetch(`${RELAY}${file}`);
      expect([file, res.status]).toEqual([file, 200]);
      expect(res.headers.get('content-type')).toMatch(type);
    }
    // A conversation's address is the app's too (client-side routing).
    expect(await (await fetch(`${RELAY}/c/someone`)).text()).toBe(html);
  });

  it('ingests an image, downloads it and makes its thumbnail', async () => {
    const form = new FormData();
    form.set('tags', 'smoke');
    form.set('file', new Blob([PNG], { type: 'image/png' }), 'dot.png');
    const ingested = await fetch(`${API}/ingest`, { method: 'POST', body: form });
    expect(ingested.status).toBe(200);
    const body = (await json(ingested)) as { data: { timestamp: number; hash: string } };
    const { timestamp, hash } = body.data;
    expect(body).toEqual({
      status: 'success',
      data: { timestamp, hash, filename: `${timestamp}_${hash}_smoke.png` },
    });
    assetHash = hash;

    const downloaded = await fetch(`${API}/asset/${hash}`);
    expect(downloaded.status).toBe(200);
    expect(downloaded.headers.get('content-type')).toBe('image/png');
    expect(Buffer.from(await downloaded.arrayBuffer())).toEqual(PNG);

    const thumb = await fetch(`${API}/asset/${hash}/thumb/64/64`);
    expect(thumb.status).toBe(200);
    expect(thumb.headers.get('content-type')).toBe('image/jpeg');
    expect(Buffer.from(await thumb.arrayBuffer()).subarray(0, 3)).toEqual(
      Buffer.from([0xff, 0xd8, 0xff]),
    );
  });

  it('registers a handle, streams a message sent to it and lists it in the signed inbox', async () => {
    keys = generateKeyPair();
    const registered = await fetch(`${RELAY}/v1/register`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify(
        signRegistration({ server: 'localhost', handle, secretKey: keys.secretKey }),
      ),
    });
    expect(registered.status).toBe(201);
    expect(await json(registered)).toMatchObject({
      handle,
      fqhn: `${handle}@localhost`,
      primary: primaryOf(keys.publicKey),
      proofs: [],
    });

    const abort = new AbortController();
    const auth = signedAuthValue(keys.secretKey, authLines.stream(handle));
    const stream = await fetch(
      `${RELAY}/v1/inbox/${handle}/stream?auth=${encodeURIComponent(auth)}`,
      {
        signal: abort.signal,
      },
    );
    expect(stream.status).toBe(200);
    expect(stream.headers.get('content-type')).toBe('text/event-stream');

    const send = await fetch(`${RELAY}/v1/messages`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ to: handle, envelope: { hello: 'compose' } }),
    });
    expect(send.status).toBe(201);
    sent = (await json(send)) as typeof sent;
    const live = await nextMessage(stream.body!);
    abort.abort();
    expect(JSON.parse(live)).toEqual({ ...sent, envelope: { hello: 'compose' } });

    const page = await inbox();
    expect(page.status).toBe(200);
    expect(await json(page)).toEqual({
      messages: [{ seq: sent.seq, envelope: { hello: 'compose' }, created_at: sent.created_at }],
      next_since: sent.seq,
      has_more: false,
    });
  });

  it('keeps the asset and the message across `restart`', async () => {
    await stack.compose('restart');
    for (const service of SERVICES) await stack.waitHealthy(service);
    const downloaded = await fetch(`${API}/asset/${assetHash}`);
    expect(downloaded.status).toBe(200);
    expect(Buffer.from(await downloaded.arrayBuffer())).toEqual(PNG);
    const page = await inbox();
    expect(page.status).toBe(200);
    expect(((await json(page)) as { messages: unknown[] }).messages).toEqual([
      { seq: sent.seq, envelope: { hello: 'compose' }, created_at: sent.created_at },
    ]);
  });

  it('stops both services with exit code 0 within their grace period', async () => {
    const before = Date.now();
    await stack.compose('stop', ...SERVICES);
    for (const service of SERVICES) {
      const state = await stack.state(service);
      expect({ service, status: state.Status, exitCode: state.ExitCode }).toEqual({
        service,
        status: 'exited',
        exitCode: 0,
      });
      // stop_grace_period is 20 s: a service still running then would have been killed (137).
      expect(Date.parse(state.FinishedAt) - before).toBeLessThan(20_000);
    }
  });
});
