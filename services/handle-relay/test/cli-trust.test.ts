import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { sql } from 'kysely';
import { readKeyFile } from '../src/client/key-file.js';
import {
  generateKeyPair,
  linkLine,
  primaryOf,
  RelayClient,
  rotationLink,
  safetyNumber,
} from '../src/client/index.js';
import { runCliCollecting } from './cli-runner.js';
import { uniqueHandle } from './handle-factories.js';
import { createTestApp, listenOnLoopback, SETUP_TIMEOUT_MS } from './test-app.js';
import type { ListeningApp, TestApp } from './test-app.js';

let t: TestApp;
let listening: ListeningApp;
let dir: string;
const alice = uniqueHandle('alice');
const bob = uniqueHandle('bob');

beforeAll(async () => {
  t = await createTestApp('cli_trust');
  listening = await listenOnLoopback(t.app);
  dir = t.dataDir;
  for (const who of ['alice', 'bob']) expect(await as(who, 'keygen')).toMatchObject({ code: 0 });
  expect(await as('alice', 'register', alice)).toMatchObject({ code: 0 });
  expect(await as('bob', 'register', bob)).toMatchObject({ code: 0 });
}, SETUP_TIMEOUT_MS);
afterAll(async () => {
  await listening.close();
  await t.close();
}, SETUP_TIMEOUT_MS);

/** The CLI as `who`: their key file and pin file. */
function as(who: string, ...args: string[]) {
  return runCliCollecting([
    ...args,
    '--url',
    listening.url,
    '--key',
    path.join(dir, `${who}.key.json`),
    '--pins',
    path.join(dir, `${who}.pins.json`),
  ]);
}

const json = (text: string) =>
  text
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as Record<string, unknown>);

describe('the CLI against the relay', () => {
  it('verify pins on first use; rotate keeps the old key until acknowledged; verify explains it', async () => {
    const first = await as('alice', 'verify', bob);
    expect(first.code).toBe(0);
    const bobKey = primaryOf((await readKeyFile(path.join(dir, 'bob.key.json'))).publicKey);
    expect(json(first.out)[0]).toMatchObject({
      handle: `${bob}@relay.test`,
      key: bobKey,
      status: 'first-use',
      links: 1,
    });
    expect(json((await as('alice', 'verify', bob)).out)[0]).toMatchObject({ status: 'same' });

    const rotated = await as('bob', 'rotate', bob);
    expect(rotated.code).toBe(0);
    const newKey = primaryOf((await readKeyFile(path.join(dir, 'bob.key.json'))).publicKey);
    expect(newKey).not.toBe(bobKey);
    expect(fs.existsSync(path.join(dir, 'bob.key.json.next'))).toBe(false);
    expect(JSON.parse(rotated.out)).toMatchObject({ handle: bob, primary: newKey });

    const after = await as('alice', 'verify', bob);
    expect(after.code).toBe(0);
    expect(json(after.out)[0]).toMatchObject({
      key: newKey,
      status: 'rotated',
      pinned: bobKey,
      links: 2,
    });
  });

  it('a rotation refused leaves the old key file in place', async () => {
    // Alice's key does not hold bob's handle.
    const res = await as('alice', 'rotate', bob);
    expect(res.code).toBe(1);
    expect(res.err).toMatch(/is not held by the key/);
    expect(fs.existsSync(path.join(dir, 'alice.key.json'))).toBe(true);
    fs.rmSync(path.join(dir, 'alice.key.json.next'), { force: true });
  });

  it('safety gives both sides the same number, the contract formula', async () => {
    const a = await as('alice', 'safety', bob);
    const b = await as('bob', 'safety', alice);
    expect(a.code).toBe(0);
    expect(a.out).toBe(b.out);
    expect(a.out.trim()).toMatch(/^(\d{5} ){11}\d{5}$/);
    const keys = await Promise.all(
      ['alice', 'bob'].map((w) => readKeyFile(path.join(dir, `${w}.key.json`))),
    );
    expect(a.out.trim()).toBe(safetyNumber(keys[0]!.publicKey, keys[1]!.publicKey));
    // The contract's formula, written here again with node:crypto.
    const sorted = keys.map((k) => Buffer.from(k.publicKey)).sort((x, y) => Buffer.compare(x, y));
    const digest = createHash('sha512').update(Buffer.concat(sorted)).digest();
    const groups = Array.from({ length: 12 }, (_, i) =>
      String(Number(digest.readUIntBE(i * 5, 5) % 100000)).padStart(5, '0'),
    );
    expect(a.out.trim()).toBe(groups.join(' '));
  });

  it('monitor prints heads and watched links; an unexplained key swap fails verify and monitor', async () => {
    const ok = await as('bob', 'monitor', '--watch', bob, '--once');
    expect(ok.code).toBe(0);
    const lines = json(ok.out);
    expect(lines[0]).toMatchObject({ type: 'head' });
    expect(lines.filter((l) => l.type === 'link').map((l) => l.link_type)).toEqual([
      'eldest',
      'rotate',
    ]);
    // Bob's eldest link names his old key: `rotate` recorded it as his own.
    expect(ok.err).toBe('');

    // The operator swaps bob's key in the database, with a link nobody signed.
    const intruder = generateKeyPair();
    const size = Number(
      (await sql<{ size: number }>`select size from log_state`.execute(t.store.db)).rows[0]!.size,
    );
    const fake = linkLine({
      seq: 3,
      prev: '00'.repeat(32),
      type: 'rotate',
      handle: `${bob}@relay.test`,
      key: primaryOf(intruder.publicKey),
      ctime: 1,
      sig: '00'.repeat(64),
      new_sig: '00'.repeat(64),
    });
    await t.store.db.transaction().execute(async (trx) => {
      const { lockTree, appendLinks } = await import('../src/translog/log.repository.js');
      await appendLinks(trx, await lockTree(trx), [
        { handle: bob, seq: 3, key: primaryOf(intruder.publicKey), line: fake },
      ]);
      await trx
        .updateTable('handle')
        .set({ primary_key: primaryOf(intruder.publicKey) })
        .where('handle', '=', bob)
        .execute();
    });
    expect(size).toBeGreaterThan(0);
    const verify = await as('alice', 'verify', bob);
    expect(verify.code).toBe(1);
    expect(verify.err).toMatch(/did not verify/);
    const watch = await as('bob', 'monitor', '--watch', bob, '--once');
    expect(watch.code).toBe(1);
    expect(json(watch.out).at(-1)).toMatchObject({
      type: 'link',
      key: primaryOf(intruder.publicKey),
    });
    // The forged link does not even follow bob's chain.
    expect(watch.err).toBe(
      `handle-relay: entry ${size}: ${bob}@relay.test's link 3 (rotate) does not follow link 2 of the chain\n`,
    );
  });

  it('monitor checks the signatures of a watched handle it starts following late', async () => {
    const carol = uniqueHandle('carol');
    expect(await as('carol', 'keygen')).toMatchObject({ code: 0 });
    expect(await as('carol', 'register', carol)).toMatchObject({ code: 0 });
    const keyFile = path.join(dir, 'carol.key.json');
    const first = await readKeyFile(keyFile);
    // The monitor reads past carol's eldest link before it watches her.
    expect(await as('carol', 'monitor', '--once')).toMatchObject({ code: 0, err: '' });
    expect(await as('carol', 'rotate', carol)).toMatchObject({ code: 0 });
    const second = await readKeyFile(keyFile);
    const late = await as('carol', 'monitor', '--watch', carol, '--once');
    expect(late).toMatchObject({ code: 0, err: '' });
    expect(json(late.out).filter((l) => l.type === 'link')).toEqual([
      expect.objectContaining({ seq: 2, link_type: 'rotate', key: primaryOf(second.publicKey) }),
    ]);

    // The operator logs a rotation back to carol's first key (one she holds), well formed
    // and following her chain, but signed by a key of its own.
    const intruder = generateKeyPair();
    const lines = await new RelayClient({ baseUrl: listening.url }).sigchain(
      primaryOf(second.publicKey),
    );
    const forged = rotationLink({
      lastLine: lines.at(-1)!,
      oldSecretKey: intruder.secretKey,
      newSecretKey: intruder.secretKey,
    });
    const fake = linkLine({ ...forged, key: primaryOf(first.publicKey) });
    const index = await appendForged(carol, 3, primaryOf(first.publicKey), fake);
    const watch = await as('carol', 'monitor', '--watch', carol, '--once');
    expect(watch.code).toBe(1);
    expect(json(watch.out).at(-1)).toEqual({
      type: 'link',
      index,
      handle: `${carol}@relay.test`,
      seq: 3,
      link_type: 'rotate',
      key: primaryOf(first.publicKey),
    });
    expect(watch.err).toBe(
      `handle-relay: entry ${index}: ${carol}@relay.test's link 3 (rotate): sig did not verify by the key in force before the link\n`,
    );
  });

  it('monitor fails on a rotation properly signed by a leaked key to a key the owner does not hold', async () => {
    const dave = uniqueHandle('dave');
    expect(await as('dave', 'keygen')).toMatchObject({ code: 0 });
    expect(await as('dave', 'register', dave)).toMatchObject({ code: 0 });
    const leaked = await readKeyFile(path.join(dir, 'dave.key.json'));
    const thief = generateKeyPair();
    const lines = await new RelayClient({ baseUrl: listening.url }).sigchain(
      primaryOf(leaked.publicKey),
    );
    const res = await fetch(`${listening.url}/v1/rotate`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(
        rotationLink({
          lastLine: lines.at(-1)!,
          oldSecretKey: leaked.secretKey,
          newSecretKey: thief.secretKey,
        }),
      ),
    });
    expect(res.status).toBe(200);
    const watch = await as('dave', 'monitor', '--watch', dave, '--once');
    expect(watch.code).toBe(1);
    const links = json(watch.out).filter((l) => l.type === 'link');
    expect(links.map((l) => [l.link_type, l.key])).toEqual([
      ['eldest', primaryOf(leaked.publicKey)],
      ['rotate', primaryOf(thief.publicKey)],
    ]);
    expect(watch.err).toBe(
      `handle-relay: entry ${String(links[1]!.index)}: ${dave}@relay.test's link 2 (rotate) is signed by or moves to ${primaryOf(thief.publicKey)}, a key you do not hold (${primaryOf(leaked.publicKey)})\n`,
    );
  });
});

/** Appends a link to the log and moves the handle to `key`, as a dishonest operator could. */
async function appendForged(handle: string, seq: number, key: string, line: string) {
  return t.store.db.transaction().execute(async (trx) => {
    const { lockTree, appendLinks } = await import('../src/translog/log.repository.js');
    const tree = await lockTree(trx);
    await appendLinks(trx, tree, [{ handle, seq, key, line }]);
    await trx
      .updateTable('handle')
      .set({ primary_key: key })
      .where('handle', '=', handle)
      .execute();
    return tree.size;
  });
}
