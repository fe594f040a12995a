import path from 'node:path';
import { readKeyFile } from '../src/client/key-file.js';
import { generateKeyPair, RelayClient, sealText } from '../src/client/index.js';
import { runCliCollecting, type CliRunOptions } from './cli-runner.js';
import { uniqueHandle } from './handle-factories.js';
import { createTestApp, listenOnLoopback, SETUP_TIMEOUT_MS } from './test-app.js';
import type { ListeningApp, TestApp } from './test-app.js';
import { waitFor } from './wait-for.js';

let t: TestApp;
let listening: ListeningApp;
let url: string;
const alice = { handle: uniqueHandle('alice'), keyFile: '' };
const bob = { handle: uniqueHandle('bob'), keyFile: '' };

function cli(who: { keyFile: string }, args: string[], extra: CliRunOptions = {}) {
  return runCliCollecting([...args, '--url', url, '--key', who.keyFile], extra);
}

beforeAll(async () => {
  t = await createTestApp('cli_encrypted');
  listening = await listenOnLoopback(t.app);
  url = listening.url;
  for (const who of [alice, bob]) {
    who.keyFile = path.join(t.dataDir, `${who.handle}.key.json`);
    expect(await cli(who, ['keygen'])).toMatchObject({ code: 0 });
    expect(await cli(who, ['register', who.handle])).toMatchObject({ code: 0 });
  }
}, SETUP_TIMEOUT_MS);
afterAll(async () => {
  await listening.close();
  await t.close();
}, SETUP_TIMEOUT_MS);

/** The stored envelope text of one message, read straight from the database. */
async function storedEnvelope(seq: number): Promise<string> {
  const row = await t.store.db
    .selectFrom('message')
    .select('envelope')
    .where('seq', '=', seq)
    .executeTakeFirstOrThrow();
  return row.envelope;
}

describe('CLI end-to-end encryption', () => {
  it('send encrypts to the recipient, who reads it in the inbox named by a reverse lookup', async () => {
    const sent = await cli(alice, ['send', bob.handle, 'hello bob, secretly']);
    expect(sent.code).toBe(0);
    const { seq } = JSON.parse(sent.out) as { seq: number };
    const stored = JSON.parse(await storedEnvelope(seq)) as Record<string, unknown>;
    expect(Object.keys(stored)).toEqual(['v', 'alg', 'from', 'nonce', 'ciphertext']);
    expect(JSON.stringify(stored)).not.toContain('secretly');
    const alicePrimary = `ed25519:${Buffer.from((await readKeyFile(alice.keyFile)).publicKey).toString('hex')}`;
    expect(stored).toMatchObject({ v: 1, alg: 'x25519-xsalsa20poly1305', from: alicePrimary });

    const inbox = await cli(bob, ['inbox', bob.handle, '--since', String(seq - 1)]);
    expect(inbox.code).toBe(0);
    expect(inbox.err).toBe('');
    const line = JSON.parse(inbox.out) as Record<string, unknown>;
    expect(line).toEqual({
      seq,
      from: alicePrimary,
      from_handle: alice.handle,
      text: 'hello bob, secretly',
      sent_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT/) as unknown,
    });
    expect(Object.keys(line)).toEqual(['seq', 'from', 'from_handle', 'text', 'sent_at']);
  });

  it('an envelope sealed for someone else says why it does not open', async () => {
    const client = new RelayClient({ baseUrl: url });
    const envelope = sealText({
      text: 'not for bob',
      to: `${bob.handle}@relay.test`,
      recipientPrimary: (await client.lookup(alice.handle)).primary,
      sender: generateKeyPair(),
    });
    const { seq } = await client.send(bob.handle, envelope);
    const inbox = await cli(bob, ['inbox', bob.handle, '--since', String(seq - 1)]);
    expect(JSON.parse(inbox.out)).toEqual({
      seq,
      envelope,
      error: 'envelope does not open with this key (not for us, or altered)',
    });
  });

  it('listen opens messages live, in order; a sender with no handle has from_handle null', async () => {
    const stop = new AbortController();
    const lines: string[] = [];
    const ended = cli(bob, ['listen', bob.handle], {
      signal: stop.signal,
      onOut: (text) => lines.push(...text.trim().split('\n')),
    });
    await waitFor(() => t.relay.streams.size === 1, 'the CLI to connect');
    const client = new RelayClient({ baseUrl: url });
    const bobRecord = await client.lookup(bob.handle);
    const stranger = generateKeyPair();
    expect((await cli(alice, ['send', bob.handle, 'one'])).code).toBe(0);
    await client.send(
      bob.handle,
      sealText({
        text: 'two',
        to: bobRecord.fqhn,
        recipientPrimary: bobRecord.primary,
        sender: stranger,
      }),
    );
    expect((await cli(alice, ['send', bob.handle, 'three'])).code).toBe(0);
    try {
      await waitFor(() => lines.length === 3, 'three lines', 10_000);
    } finally {
      stop.abort();
    }
    expect((await ended).code).toBe(0);
    const got = lines.map((l) => JSON.parse(l) as { text: string; from_handle: string | null });
    expect(got.map((l) => [l.text, l.from_handle])).toEqual([
      ['one', alice.handle],
      ['two', null],
      ['three', alice.handle],
    ]);
  }, 30_000);

  it('send to a handle nobody registered fails with the relay’s words (exit 1)', async () => {
    expect(await cli(alice, ['send', uniqueHandle('ghost'), 'hi'])).toEqual({
      code: 1,
      out: '',
      err: 'handle-relay: 404 not_found: handle not found\n',
    });
  });
});
