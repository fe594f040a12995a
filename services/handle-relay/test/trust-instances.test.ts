import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createTestDatabase, TcpProxy, testDatabaseMode, type TestDatabase } from '@svc/testing';
import { createLogger } from '@svc/envelope';
import { sql } from 'kysely';
import request from 'supertest';
import {
  authLines,
  generateKeyPair,
  primaryOf,
  rotationLink,
  signedAuthValue,
  verifyConsistency,
  verifyInclusion,
  type KeyPair,
} from '../src/client/index.js';
import { createApp, type App } from '../src/app.js';
import { configSchema } from '../src/config.js';
import { openStore, targetFor } from '../src/db/database.js';
import { createRelayRuntime } from '../src/runtime.js';
import { registerHandle, type RegisteredHandle } from './handle-factories.js';
import { refLeaf, refMth, refPath, refProof, refVerifyConsistency } from './rfc9162.js';
import { openSse, type SseClient } from './sse-client.js';
import { waitFor } from './wait-for.js';
import { listenOnLoopback, SETUP_TIMEOUT_MS } from './test-app.js';

const SERVER = 'relay.test';

interface Instance {
  app: App;
  close(): Promise<void>;
}

/** One relay process's parts on `target`, signing with the log key at `logKeyPath`. */
async function startInstance(
  target: Parameters<typeof openStore>[0],
  logKeyPath: string,
): Promise<Instance> {
  const config = Object.freeze(
    configSchema.parse({
      server: SERVER,
      vapid_key_path: path.join(path.dirname(logKeyPath), 'vapid.json'),
      log_key_path: logKeyPath,
      log_level: 'silent',
      rate_limit_per_minute: 0,
    }),
  );
  const store = await openStore(target);
  const logger = createLogger('trust-instances', 'silent');
  const relay = await createRelayRuntime({ config, store, logger, now: Date.now });
  const app = createApp({
    config,
    db: store.db,
    ping: store.ping,
    logger,
    version: '0.1.0',
    now: Date.now,
    relay,
  });
  return {
    app,
    close: async () => {
      await relay.close();
      await store.close();
    },
  };
}

interface Head {
  size: number;
  root: string;
  key: string;
}

async function headOf(app: App): Promise<Head> {
  return (await request(app).get('/v1/log/head').expect(200)).body as Head;
}

async function entriesOf(app: App, size: number): Promise<string[]> {
  return (
    (await request(app).get(`/v1/log/entries?start=0&end=${size}`).expect(200)).body as {
      entries: string[];
    }
  ).entries;
}

async function lastLine(app: App, primary: string): Promise<string> {
  const text = (
    await request(app)
      .get(`/v1/sigchains/${primary.replace(':', '/')}`)
      .expect(200)
  ).text;
  return text.trimEnd().split('\n').at(-1)!;
}

async function rotateOn(app: App, owner: RegisteredHandle, next: KeyPair): Promise<void> {
  const link = rotationLink({
    lastLine: await lastLine(app, owner.record.primary),
    oldSecretKey: owner.keys.secretKey,
    newSecretKey: next.secretKey,
  });
  await request(app).post('/v1/rotate').send(link).expect(200);
}

/** The head's root is the reference MTH of the entries, and each leaf's proof verifies. */
async function checkLog(app: App, kept?: Head): Promise<Head> {
  const head = await headOf(app);
  const entries = await entriesOf(app, head.size);
  expect(head.root).toBe(refMth(entries).toString('hex'));
  for (const [m, entry] of entries.entries()) {
    const leaf = refLeaf(entry).toString('hex');
    const proof = (
      await request(app).get(`/v1/log/inclusion?leaf=${leaf}&size=${head.size}`).expect(200)
    ).body as { index: number; path: string[] };
    expect(proof).toEqual({ index: m, size: head.size, path: refPath(m, entries) });
    expect(verifyInclusion(m, head.size, leaf, proof.path, head.root)).toBe(true);
  }
  if (kept && kept.size < head.size) {
    const { path: proof } = (
      await request(app).get(`/v1/log/consistency?from=${kept.size}&to=${head.size}`).expect(200)
    ).body as { path: string[] };
    expect(proof).toEqual(refProof(kept.size, entries));
    expect(refVerifyConsistency(kept.size, head.size, kept.root, head.root, proof)).toBe(true);
    expect(verifyConsistency(kept.size, head.size, kept.root, head.root, proof)).toBe(true);
  }
  return head;
}

let dir: string;
let db: TestDatabase | undefined;
beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'handle-relay-trust-'));
});
afterEach(async () => {
  await db?.drop();
  db = undefined;
  fs.rmSync(dir, { recursive: true, force: true });
});

/** A database that outlives one instance: the server's, or an embedded folder. */
async function durableTarget(label: string): Promise<Parameters<typeof openStore>[0]> {
  if (testDatabaseMode() === 'postgres') {
    db = await createTestDatabase(label);
    return db.target;
  }
  return targetFor(path.join(dir, 'db'));
}

describe('the log across a restart', () => {
  it(
    'keeps its head, proofs and key; a lost key file is loud in /v1/healthz',
    async () => {
      const target = await durableTarget('trust_restart');
      const keyPath = path.join(dir, 'log-key.json');
      const first = await startInstance(target, keyPath);
      let kept: Head;
      let ann: RegisteredHandle;
      try {
        ann = await registerHandle(first.app, SERVER);
        await registerHandle(first.app, SERVER);
        await rotateOn(first.app, ann, generateKeyPair());
        kept = await checkLog(first.app);
        expect(fs.statSync(keyPath).mode & 0o777).toBe(0o600);
      } finally {
        await first.close();
      }
      const again = await startInstance(target, keyPath);
      try {
        const head = await headOf(again.app);
        expect(head).toMatchObject({ size: kept.size, root: kept.root, key: kept.key });
        await registerHandle(again.app, SERVER);
        await registerHandle(again.app, SERVER);
        await checkLog(again.app, kept);
        const health = (await request(again.app).get('/v1/healthz').expect(200)).body as object;
        expect(health).not.toHaveProperty('log_key_problem');
      } finally {
        await again.close();
      }
      // The key file is lost: a new key is made, and the relay says so.
      fs.rmSync(keyPath);
      const lost = await startInstance(target, keyPath);
      try {
        const health = (await request(lost.app).get('/v1/healthz').expect(200)).body as {
          log_key: string;
          log_key_problem: string;
        };
        expect(health.log_key).not.toBe(kept.key);
        expect(health.log_key_problem).toContain(`the log was signed by ${kept.key}`);
        expect((await headOf(lost.app)).key).toBe(health.log_key);
      } finally {
        await lost.close();
      }
    },
    SETUP_TIMEOUT_MS * 2,
  );
});

// Two instances share a log only through a PostgreSQL server.
const onServer = testDatabaseMode() === 'postgres' ? describe : describe.skip;

onServer('two instances on one database', () => {
  it(
    'append to one log in one order; a rotation on one is in force on the other at once',
    async () => {
      const target = await durableTarget('trust_two');
      const keyPath = path.join(dir, 'log-key.json');
      const [a, b] = [await startInstance(target, keyPath), await startInstance(target, keyPath)];
      const listening = await listenOnLoopback(b.app);
      try {
        const owners = await Promise.all(
          Array.from({ length: 12 }, (_, i) => registerHandle(i % 2 ? a.app : b.app, SERVER)),
        );
        const kept = await checkLog(a.app);
        expect(await headOf(b.app)).toMatchObject({ size: kept.size, root: kept.root });
        const owner = owners[0]!;
        const stream = await openSse(
          listening.url,
          `/v1/inbox/${owner.handle}/stream?auth=${encodeURIComponent(signedAuthValue(owner.keys.secretKey, authLines.stream(owner.handle)))}`,
        );
        expect(stream.status).toBe(200);
        const next = generateKeyPair();
        // Rotations and registrations on both at once.
        await Promise.all([
          rotateOn(a.app, owner, next),
          ...Array.from({ length: 6 }, (_, i) => registerHandle(i % 2 ? a.app : b.app, SERVER)),
        ]);
        const auth = (keys: KeyPair) =>
          signedAuthValue(keys.secretKey, authLines.inbox(owner.handle, 0));
        await request(b.app)
          .get(`/v1/inbox/${owner.handle}`)
          .set('X-ID-Auth', auth(owner.keys))
          .expect(401);
        await request(b.app)
          .get(`/v1/inbox/${owner.handle}`)
          .set('X-ID-Auth', auth(next))
          .expect(200);
        await request(b.app)
          .get(`/v1/by-primary/${primaryOf(next.publicKey)}`)
          .expect(200);
        await request(b.app).get(`/v1/by-primary/${owner.record.primary}`).expect(404);
        // The stream the old key opened on the other instance ends.
        const until = Date.now() + 5000;
        while (!stream.ended && Date.now() < until) await new Promise((r) => setTimeout(r, 20));
        expect(stream.ended).toBe(true);
        await checkLog(b.app, kept);
        expect(await entriesOf(a.app, kept.size + 7)).toEqual(
          await entriesOf(b.app, kept.size + 7),
        );
      } finally {
        await listening.close();
        await a.close();
        await b.close();
      }
    },
    SETUP_TIMEOUT_MS * 2,
  );
});

/** A stream of `owner`'s inbox on `base`, authorised by `keys`. */
function streamOf(base: string, owner: RegisteredHandle, keys: KeyPair): Promise<SseClient> {
  const auth = signedAuthValue(keys.secretKey, authLines.stream(owner.handle));
  return openSse(base, `/v1/inbox/${owner.handle}/stream?auth=${encodeURIComponent(auth)}`);
}

async function send(app: App, to: string, envelope: unknown): Promise<number> {
  const res = await request(app).post('/v1/messages').send({ to, envelope }).expect(201);
  return (res.body as { seq: number }).seq;
}

onServer('a rotation while streams open and run on two instances', () => {
  it(
    'a stream still opening under the old key when the rotation is heard is refused (401); open ones end; the new key hears what follows',
    async () => {
      const target = await durableTarget('trust_race');
      if (target.kind !== 'postgres') throw new Error('needs a PostgreSQL server');
      const keyPath = path.join(dir, 'log-key.json');
      const [a, b] = [await startInstance(target, keyPath), await startInstance(target, keyPath)];
      const [onA, onB] = [await listenOnLoopback(a.app), await listenOnLoopback(b.app)];
      const locker = await openStore(target);
      let release = (): void => undefined;
      let locked: Promise<void> | undefined;
      const streams: SseClient[] = [];
      try {
        const owner = await registerHandle(a.app, SERVER);
        const oldOnA = await streamOf(onA.url, owner, owner.keys);
        const oldOnB = await streamOf(onB.url, owner, owner.keys);
        streams.push(oldOnA, oldOnB);
        expect([oldOnA.status, oldOnB.status]).toEqual([200, 200]);

        // A stream on B passes its auth check, then waits on the store (the message table
        // is locked), while the rotation commits on A and B hears of it.
        const gate = new Promise<void>((r) => (release = r));
        let lockHeld = false;
        locked = locker.db.transaction().execute(async (trx) => {
          await sql`lock table message in access exclusive mode`.execute(trx);
          lockHeld = true;
          await gate;
        });
        await waitFor(() => lockHeld, 'the lock');
        const opening = streamOf(onB.url, owner, owner.keys);
        const blocked = async () =>
          (
            await sql<{ n: number }>`select count(*)::int as n from pg_stat_activity
              where datname = current_database() and wait_event_type = 'Lock'`.execute(locker.db)
          ).rows[0]!.n > 0;
        const until = Date.now() + 10_000;
        while (!(await blocked())) {
          if (Date.now() > until) throw new Error('the opening stream never waited on the lock');
          await new Promise((r) => setTimeout(r, 10));
        }
        const next = generateKeyPair();
        await rotateOn(a.app, owner, next);
        // B heard the rotation: the stream the old key opened there ended.
        await waitFor(() => oldOnA.ended && oldOnB.ended, 'the old key streams to end');
        release();
        await locked;
        const late = await opening;
        streams.push(late);
        expect(late.status).toBe(401);
        await waitFor(() => late.ended, 'the refused stream to end');
        expect(JSON.parse(late.text)).toEqual({
          error: { code: 'unauthorized', message: 'signature did not verify' },
        });

        // The new key opens on both; a message sent now reaches only its streams.
        const newOnA = await streamOf(onA.url, owner, next);
        const newOnB = await streamOf(onB.url, owner, next);
        streams.push(newOnA, newOnB);
        const seq = await send(b.app, owner.handle, 'after the rotation');
        await newOnA.waitForMessages(1);
        await newOnB.waitForMessages(1);
        expect(newOnB.messages().map((m) => [m.seq, m.envelope])).toEqual([
          [seq, 'after the rotation'],
        ]);
        for (const old of [oldOnA, oldOnB]) expect(old.messages()).toEqual([]);
      } finally {
        release();
        await locked?.catch(() => undefined);
        await locker.close();
        for (const s of streams) s.close();
        await onA.close();
        await onB.close();
        await a.close();
        await b.close();
      }
    },
    SETUP_TIMEOUT_MS * 2,
  );

  it(
    "an instance whose LISTEN connection was down when a rotation committed ends the old key's streams once it is back",
    async () => {
      const target = await durableTarget('trust_missed');
      if (target.kind !== 'postgres') throw new Error('needs a PostgreSQL server');
      const url = new URL(target.url);
      const proxy = await TcpProxy.start(url.hostname, Number(url.port || 5432));
      const keyPath = path.join(dir, 'log-key.json');
      const a = await startInstance(target, keyPath);
      const b = await startInstance({ kind: 'postgres', url: proxy.rewrite(target.url) }, keyPath);
      const onB = await listenOnLoopback(b.app);
      const streams: SseClient[] = [];
      try {
        const owner = await registerHandle(a.app, SERVER);
        const other = await registerHandle(a.app, SERVER);
        const old = await streamOf(onB.url, owner, owner.keys);
        const bystander = await streamOf(onB.url, other, other.keys);
        streams.push(old, bystander);
        expect([old.status, bystander.status]).toEqual([200, 200]);

        // B loses the database (its LISTEN connections too); the rotation rings nobody there.
        await proxy.cut();
        await rotateOn(a.app, owner, generateKeyPair());
        await new Promise((r) => setTimeout(r, 500));
        expect(old.ended).toBe(false);
        await proxy.restore();
        // Back, B reads the keys of its open streams again.
        await waitFor(() => old.ended, "the rotated key's stream to end", 15_000);
        expect(bystander.ended).toBe(false);
        const seq = await send(a.app, other.handle, 'still here');
        await bystander.waitForMessages(1, 15_000);
        expect(bystander.messages().map((m) => m.seq)).toEqual([seq]);
      } finally {
        for (const s of streams) s.close();
        await onB.close();
        await a.close();
        await b.close();
        await proxy.close();
      }
    },
    SETUP_TIMEOUT_MS * 2,
  );
});
