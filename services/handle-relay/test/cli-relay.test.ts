import fs from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import path from 'node:path';
import { readKeyFile } from '../src/client/key-file.js';
import { authLines, RelayClient, signedAuthValue, unixNow } from '../src/client/index.js';
import { runCliCollecting, type CliRunOptions } from './cli-runner.js';
import { uniqueHandle } from './handle-factories.js';
import { createTestApp, listenOnLoopback, SETUP_TIMEOUT_MS } from './test-app.js';
import type { ListeningApp, TestApp } from './test-app.js';
import { waitFor } from './wait-for.js';

let t: TestApp;
let listening: ListeningApp;
let url: string;
let keyFile: string;
let handle: string;

beforeAll(async () => {
  t = await createTestApp('cli_relay');
  listening = await listenOnLoopback(t.app);
  url = listening.url;
  keyFile = path.join(t.dataDir, 'me.key.json');
  handle = uniqueHandle('cli');
  expect(await cli('keygen')).toMatchObject({ code: 0 });
  expect(await cli('register', handle)).toMatchObject({ code: 0 });
}, SETUP_TIMEOUT_MS);
afterAll(async () => {
  await listening.close();
  await t.close();
}, SETUP_TIMEOUT_MS);

async function cli(...args: string[]): Promise<{ code: number; out: string; err: string }>;
async function cli(...args: string[]) {
  return cliWith({}, ...args);
}

function cliWith(extra: CliRunOptions, ...args: string[]) {
  return runCliCollecting([...args, '--url', url, '--key', keyFile], extra);
}

/**
 * Starts `listen` on the handle and resolves once its stream is open, with the lines it
 * printed so far and `stopAfter`, which waits for that many lines (10 s at most), stops it
 * and resolves with how it ended.
 */
async function listen() {
  const stop = new AbortController();
  const lines: string[] = [];
  const ended = cliWith(
    { signal: stop.signal, onOut: (text) => lines.push(...text.trim().split('\n')) },
    'listen',
    handle,
  );
  await waitFor(() => t.relay.streams.size === 1, 'the CLI to connect');
  const stopAfter = async (count: number, what: string) => {
    try {
      await waitFor(() => lines.length === count, what, 10_000);
    } finally {
      stop.abort();
    }
    return ended;
  };
  return { lines, stopAfter };
}

describe('CLI send, inbox and listen', () => {
  it('sends a raw JSON envelope and reads it back from the signed inbox, unopened', async () => {
    const sent = await cli('send', '--raw', handle, '{"hello":"cli"}');
    expect(sent.code).toBe(0);
    const { seq } = JSON.parse(sent.out) as { seq: number };
    const page = await cli('inbox', handle, '--since', String(seq - 1));
    expect(page).toEqual({
      code: 0,
      out: `${JSON.stringify({ seq, envelope: { hello: 'cli' }, error: 'not a version-1 envelope' })}\n`,
      err: '',
    });
  });

  it('sends the envelope as written, numbers beyond a double included', async () => {
    const text = '{"n":12345678901234567890,"f":1.50,"s":"\\u00e9"}';
    const sent = await cli('send', '--raw', handle, text);
    expect(sent.code).toBe(0);
    const { seq } = JSON.parse(sent.out) as { seq: number };
    const keys = await readKeyFile(keyFile);
    const since = seq - 1;
    const auth = signedAuthValue(keys.secretKey, authLines.inbox(handle, since), unixNow());
    const res = await fetch(`${url}/v1/inbox/${handle}?since=${since}`, {
      headers: { 'X-ID-Auth': auth },
    });
    expect(res.status).toBe(200);
    expect(await res.text()).toContain(`"envelope":${text}`);
  });

  it('ignores a leading -- (as pnpm passes it on) and still reads the options after it', async () => {
    const sent = await cli('--', 'send', '--raw', handle, '{"after":"dashes"}');
    expect(sent.code).toBe(0);
    const { seq } = JSON.parse(sent.out) as { seq: number };
    const page = await cli('--', 'inbox', handle, '--since', String(seq - 1), '--limit', '1');
    expect(page).toMatchObject({ code: 0, err: '' });
    expect(JSON.parse(page.out)).toMatchObject({ seq, envelope: { after: 'dashes' } });
  });

  it('refuses an envelope that is not JSON (usage, exit 2) and reports relay errors (exit 1)', async () => {
    expect((await cli('send', '--raw', handle, '{nope')).code).toBe(2);
    const unknown = await cli('send', '--raw', uniqueHandle('ghost'), '1');
    expect(unknown).toMatchObject({
      code: 1,
      err: 'handle-relay: 404 not_found: handle not found\n',
    });
  });

  it('listen prints every message once, in order, across a dropped connection', async () => {
    const client = new RelayClient({ baseUrl: url });
    // Drop only the stream's connection, as a network failure would.
    const streamSockets: Socket[] = [];
    listening.server.on('request', (req: IncomingMessage) => {
      if (req.url?.includes('/stream')) streamSockets.push(req.socket);
    });
    const { lines, stopAfter } = await listen();
    const first = [];
    for (let n = 0; n < 5; n++) first.push((await client.send(handle, { n })).seq);
    await waitFor(() => lines.length === 5, 'five lines');
    for (const socket of streamSockets) socket.destroy();
    const second = [];
    for (let n = 5; n < 10; n++) second.push((await client.send(handle, { n })).seq);
    expect((await stopAfter(10, 'ten lines after the reconnect')).code).toBe(0);
    expect(streamSockets).toHaveLength(2);
    const got = lines.map((l) => JSON.parse(l) as { seq: number; envelope: { n: number } });
    expect(got.map((m) => m.seq)).toEqual([...first, ...second]);
    expect(got.map((m) => m.envelope.n)).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
    expect(fs.existsSync(keyFile)).toBe(true);
    expect((await readKeyFile(keyFile)).publicKey).toHaveLength(32);
  }, 30_000);

  it('listen loses nothing sent while it reconnects, even before its first message', async () => {
    const client = new RelayClient({ baseUrl: url });
    const streamSockets: Socket[] = [];
    const starts: (string | undefined)[] = [];
    listening.server.on('request', (req: IncomingMessage, res: ServerResponse) => {
      if (!req.url?.includes('/stream')) return;
      streamSockets.push(req.socket);
      res.once('close', () => starts.push(res.getHeader('X-Stream-After')?.toString()));
    });
    const before = (await client.send(handle, { n: 'before' })).seq;
    const { lines, stopAfter } = await listen();
    // Dropped before any message: the reconnect must still replay what came meanwhile.
    for (const socket of streamSockets) socket.destroy();
    const during = (await client.send(handle, { n: 'during' })).seq;
    expect((await stopAfter(1, 'the message sent during the drop')).code).toBe(0);
    expect(streamSockets).toHaveLength(2);
    await waitFor(() => starts.length === 2, 'both streams to close');
    expect(starts).toEqual([String(before), String(before)]);
    expect(lines.map((l) => JSON.parse(l) as { seq: number; envelope: unknown })).toEqual([
      expect.objectContaining({ seq: during, envelope: { n: 'during' } }),
    ]);
  }, 30_000);
});
