import { Writable } from 'node:stream';
import type { DatabaseHandle } from '@svc/database';
import {
  createTestDatabase,
  describeNats,
  TcpProxy,
  testDatabaseMode,
  type TestDatabase,
} from '@svc/testing';
import { freePort } from '@svc/testing/service-process';
import { sql } from 'kysely';
import { pino } from 'pino';
import { openStore, type Database } from '../src/db/database.js';
import { databaseIdentity } from '../src/db/database-identity.js';
import { MessageWriter } from '../src/messages/message-writer.js';
import { toRelayed } from '../src/messages/message.model.js';
import { latestStoredSeq, listAllMessagesAfter } from '../src/messages/message.repository.js';
import { createNatsPubSub } from '../src/pubsub/nats.pubsub.js';
import { pubSubContract, recorder } from './pubsub.contract.js';
import { SETUP_TIMEOUT_MS } from './test-app.js';
import { waitFor } from './wait-for.js';

/** The adapter's log lines, so a test can wait for one (a reconnect). */
const logLines: string[] = [];
const logger = pino(
  { level: 'info' },
  new Writable({
    write(chunk: Buffer, _encoding, done) {
      logLines.push(chunk.toString());
      done();
    },
  }),
);

let testDb: TestDatabase | undefined;
let store: DatabaseHandle<Database>;
let subject: string;

interface InstanceOptions {
  /** Where this instance reaches NATS (a proxy the test cuts, or nothing at all). */
  servers: string;
  pollUpMs?: number;
  pollDownMs?: number;
  onRead?: () => void;
}

/** An instance: its NATS pub/sub and its writer; `onRead` hears each read of the store. */
async function instance(options: InstanceOptions) {
  const pubsub = await createNatsPubSub({
    servers: options.servers,
    subject,
    readAfter: async (afterSeq, limit) => {
      options.onRead?.();
      return (await listAllMessagesAfter(store.db, afterSeq, limit)).map(toRelayed);
    },
    latestSeq: () => latestStoredSeq(store.db),
    logger,
    pollUpMs: options.pollUpMs,
    pollDownMs: options.pollDownMs,
  });
  const writer = new MessageWriter({ db: store.db, pubsub, logger });
  return {
    pubsub,
    writer,
    store: async (handle: string, envelope: unknown) => {
      await sql`
        insert into handle (handle, primary_key, registered_at)
        values (${handle}, ${`ed25519:${handle}`}, now()) on conflict do nothing
      `.execute(store.db);
      const sent = await writer.send({
        recipient: handle,
        envelope: JSON.stringify(envelope),
        created_at: new Date(),
      });
      return sent.message;
    },
    close: async () => {
      await writer.stop();
      await pubsub.close();
    },
  };
}

// NATS fans out between instances of a PostgreSQL deployment; PGlite is one process.
function onServer(name: string, body: (natsUrl: string) => void): void {
  if (testDatabaseMode() === 'postgres') describeNats(name, body);
  // Skipped on the embedded database: one process, no other instance to fan out to.
  else describe.skip(name, () => it('needs a PostgreSQL server', () => undefined));
}

onServer('NATS pub/sub', (natsUrl) => {
  beforeAll(async () => {
    testDb = await createTestDatabase('pubsub_nats');
    store = await openStore(testDb.target);
    subject = `handle_relay.messages.${await databaseIdentity(store.db)}`;
  }, SETUP_TIMEOUT_MS);
  afterAll(async () => {
    await store.close();
    await testDb?.drop();
  }, SETUP_TIMEOUT_MS);

  pubSubContract('NATS', () => instance({ servers: natsUrl }));

  it('names the subject after the database, so deployments sharing a NATS server stay apart', async () => {
    expect(subject).toMatch(/^handle_relay\.messages\.\d+-\d+$/);
    const other = await createTestDatabase('pubsub_nats_other');
    const otherStore = await openStore(other.target);
    try {
      expect(await databaseIdentity(otherStore.db)).not.toBe(subject.split('.').at(-1));
    } finally {
      await otherStore.close();
      await other.drop();
    }
  });

  it('carries batches to another instance in seq order without reading the store, and reads one too large to carry', async () => {
    let reads = 0;
    const listening = await instance({
      servers: natsUrl,
      pollUpMs: 60_000,
      onRead: () => (reads += 1),
    });
    const one = await instance({ servers: natsUrl });
    const two = await instance({ servers: natsUrl });
    try {
      const heard = recorder();
      listening.pubsub.subscribe('alice', heard);
      await one.store('alice', 'first');
      await waitFor(() => heard.got.length === 1, 'the first message');
      const readsBefore = reads;
      const sent = await Promise.all(
        Array.from({ length: 40 }, (_, n) => (n % 2 ? one : two).store('alice', { n })),
      );
      await waitFor(() => heard.got.length === 41, 'every message, from both senders');
      expect(heard.got.slice(1)).toEqual([...sent].sort((a, b) => a.seq - b.seq));
      // Rows of two senders may arrive out of turn, and then are read from the store;
      // one sender's batches follow each other and are taken as carried.
      expect(reads - readsBefore).toBeLessThan(40);
      const again = reads;
      const small = await one.store('alice', 'small');
      await waitFor(() => heard.got.length === 42, 'the carried message');
      expect(reads).toBe(again);
      const large = await one.store('alice', { pad: 'x'.repeat(600 * 1024) });
      await waitFor(() => heard.got.length === 43, 'the batch read back');
      expect(heard.got.slice(-2)).toEqual([small, large]);
      expect(reads).toBeGreaterThan(again);
    } finally {
      await listening.close();
      await one.close();
      await two.close();
    }
  });

  it('while NATS is cut, delivers from the store and sends keep working; then reconnects by itself', async () => {
    const nats = new URL(natsUrl);
    const proxy = await TcpProxy.start(nats.hostname, Number(nats.port || 4222));
    let reads = 0;
    const listening = await instance({
      servers: `nats://127.0.0.1:${proxy.port}`,
      pollUpMs: 60_000,
      pollDownMs: 50,
      onRead: () => (reads += 1),
    });
    const sender = await instance({ servers: natsUrl });
    try {
      const heard = recorder();
      listening.pubsub.subscribe('alice', heard);
      const before = await sender.store('alice', 'before the cut');
      await waitFor(() => heard.got.length === 1, 'the message before the cut');
      await proxy.cut();
      const during = [];
      for (let n = 0; n < 3; n++) during.push(await sender.store('alice', { during: n }));
      await waitFor(() => heard.got.length === 4, 'the messages stored during the cut');
      logLines.length = 0;
      await proxy.restore();
      await waitFor(
        () => logLines.some((l) => l.includes('NATS connection restored')),
        'the reconnect',
      );
      const readsAfterReconnect = reads;
      const after = await sender.store('alice', 'after the reconnect');
      await waitFor(() => heard.got.length === 5, 'the message after the reconnect');
      expect(heard.got).toEqual([before, ...during, after]);
      // Carried by NATS again: the store was not read for it.
      await new Promise((resolve) => setTimeout(resolve, 100));
      expect(reads).toBe(readsAfterReconnect);
    } finally {
      await listening.close();
      await sender.close();
      await proxy.close();
    }
  });

  it('starts without NATS: sends are stored and streams hear them from the store', async () => {
    const nowhere = `nats://127.0.0.1:${await freePort()}`;
    const listening = await instance({ servers: nowhere, pollDownMs: 50 });
    const sender = await instance({ servers: nowhere, pollDownMs: 50 });
    try {
      const heard = recorder();
      listening.pubsub.subscribe('bob', heard);
      const sent = [await sender.store('bob', 'one'), await sender.store('bob', 'two')];
      await waitFor(() => heard.got.length === 2, 'both messages, from the store');
      expect(heard.got).toEqual(sent);
      expect(logLines.some((l) => l.includes('NATS unreachable at start'))).toBe(true);
    } finally {
      await listening.close();
      await sender.close();
    }
  });
});
