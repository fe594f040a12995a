import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { sql } from 'kysely';
import { readKeyFile } from '../src/client/key-file.js';
import { generateKeyPair, linkLine, primaryOf, safetyNumber } from '../src/client/index.js';
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
    expect(watch.err).toMatch(/a key you do not hold/);
  });
});
