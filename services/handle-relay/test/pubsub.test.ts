import type { DatabaseHandle } from '@svc/database';
import { createTestDatabase, testDatabaseMode, type TestDatabase } from '@svc/testing';
import { createLogger } from '@svc/envelope';
import { sql } from 'kysely';
import { openStore, type Database } from '../src/db/database.js';
import { MessageWriter } from '../src/messages/message-writer.js';
import { toRelayed, type RelayedMessage } from '../src/messages/message.model.js';
import { latestStoredSeq, listAllMessagesAfter } from '../src/messages/message.repository.js';
import { createMemoryPubSub } from '../src/pubsub/memory.pubsub.js';
import {
  createPostgresPubSub,
  NOTIFY_CHANNEL,
  type ListenClient,
} from '../src/pubsub/postgres.pubsub.js';
import type { PubSub } from '../src/pubsub/pubsub.port.js';
import { pubSubContract, recorder, type PubSubFixture } from './pubsub.contract.js';
import { SETUP_TIMEOUT_MS } from './test-app.js';
import { waitFor } from './wait-for.js';

const logger = createLogger('pubsub-test', 'silent');
/** When the rows a test stores itself were created, in both stored forms. */
const AT = '2026-11-21T10:00:00.000Z';

pubSubContract('in-process', () => {
  const pubsub = createMemoryPubSub();
  let seq = 0;
  return Promise.resolve({
    pubsub,
    store: (handle, envelope) => {
      seq += 1;
      const m = {
        seq,
        recipient: handle,
        envelopeJson: JSON.stringify(envelope),
        createdAt: new Date().toISOString(),
      };
      pubsub.deliver([m]);
      return Promise.resolve(m);
    },
    close: () => pubsub.close(),
  });
});

const server = testDatabaseMode() === 'postgres';
// LISTEN/NOTIFY needs a PostgreSQL server; on embedded PGlite (one process) these are skipped.
const describeServer = server ? describe : describe.skip;

let testDb: TestDatabase | undefined;
let store: DatabaseHandle<Database>;

async function pgPubSub(
  connect: () => Promise<ListenClient> = () => store.pool!.connect(),
  onRead: () => void = () => undefined,
): Promise<PubSub> {
  return createPostgresPubSub({
    connect,
    readAfter: async (afterSeq, limit) => {
      onRead();
      return (await listAllMessagesAfter(store.db, afterSeq, limit)).map(toRelayed);
    },
    latestSeq: () => latestStoredSeq(store.db),
    logger,
  });
}

async function ensureHandle(handle: string): Promise<void> {
  await sql`
    insert into handle (handle, primary_key, registered_at)
    values (${handle}, ${`ed25519:${handle}`}, now()) on conflict do nothing
  `.execute(store.db);
}

/** The send path on a server: one instance's writer (creating the recipient first). */
async function storeVia(
  writer: MessageWriter,
  handle: string,
  envelope: unknown,
): Promise<RelayedMessage> {
  await ensureHandle(handle);
  const { message } = await writer.send({
    recipient: handle,
    envelope: JSON.stringify(envelope),
    created_at: new Date(),
  });
  return message;
}

/** An instance: its pub/sub and its writer; `onRead` hears each read of the store. */
async function instance(connect?: () => Promise<ListenClient>, onRead?: () => void) {
  const pubsub = await pgPubSub(connect, onRead);
  const writer = new MessageWriter({ db: store.db, pubsub, logger });
  return {
    pubsub,
    writer,
    store: (handle: string, envelope: unknown) => storeVia(writer, handle, envelope),
    close: async () => {
      await writer.stop();
      await pubsub.close();
    },
  };
}

/** An instance hearing alice (counting its reads of the store) and another that sends. */
async function listenerAndSender() {
  let reads = 0;
  const listening = await instance(undefined, () => (reads += 1));
  const sender = await instance();
  const heard = recorder();
  listening.pubsub.subscribe('alice', heard);
  await ensureHandle('alice');
  return {
    sender,
    heard,
    reads: () => reads,
    close: async () => {
      await listening.close();
      await sender.close();
    },
  };
}

if (server) {
  beforeAll(async () => {
    testDb = await createTestDatabase('pubsub');
    store = await openStore(testDb.target);
  }, SETUP_TIMEOUT_MS);
  afterAll(async () => {
    await store.close();
    await testDb?.drop();
  }, SETUP_TIMEOUT_MS);

  pubSubContract('LISTEN/NOTIFY', (): Promise<PubSubFixture> => instance());
}

describeServer('LISTEN/NOTIFY across instances', () => {
  it('delivers messages stored through one instance to listeners of another, in seq order', async () => {
    const one = await instance();
    const two = await instance();
    try {
      const heard = recorder();
      two.pubsub.subscribe('alice', heard);
      await ensureHandle('alice');
      const sent = await Promise.all(
        Array.from({ length: 40 }, (_, n) => (n % 2 ? one : two).store('alice', { n })),
      );
      await waitFor(() => heard.got.length === sent.length, 'every message on the other instance');
      expect(heard.got).toEqual([...sent].sort((a, b) => a.seq - b.seq));
    } finally {
      await one.close();
      await two.close();
    }
  });

  it('ignores a doorbell it rang itself (its writer hands those rows over) and reads on one rung by another', async () => {
    let reads = 0;
    const one = await instance(undefined, () => (reads += 1));
    try {
      const heard = recorder();
      one.pubsub.subscribe('alice', heard);
      await ensureHandle('alice');
      // A row the writer did not hand over, so only a read of the store can deliver it.
      const { rows } = await sql<{ seq: number }>`
        insert into message (recipient, envelope, created_at, created_text)
        values ('alice', '"direct"', ${AT}, ${AT}) returning seq
      `.execute(store.db);
      const seq = rows[0]!.seq;
      // Its own ring, as its writer's statement would ring it.
      await sql`select ${one.pubsub.doorbell!.ring([], sql<number>`${seq}`)}`.execute(store.db);
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(reads).toBe(0);
      expect(heard.got).toEqual([]);
      await sql`select pg_notify(${NOTIFY_CHANNEL}, ${`another-instance:${seq}`})`.execute(
        store.db,
      );
      await waitFor(() => heard.got.length === 1, 'the row after another instance rang');
      expect(heard.seqs).toEqual([seq]);
      expect(reads).toBeGreaterThan(0);
    } finally {
      await one.close();
    }
  });

  it('takes a small batch from its notification, reading nothing back, and reads one too large to carry', async () => {
    const p = await listenerAndSender();
    try {
      const small = [];
      for (let n = 0; n < 5; n++) small.push(await p.sender.store('alice', { n, text: 'é"\\:9' }));
      await waitFor(() => p.heard.got.length === small.length, 'the carried batches');
      expect(p.heard.got).toEqual(small);
      expect(p.reads()).toBe(0);
      const large = await p.sender.store('alice', { pad: 'x'.repeat(8_000) });
      await waitFor(() => p.heard.got.length === small.length + 1, 'the batch read back');
      expect(p.heard.got.at(-1)).toEqual(large);
      expect(p.reads()).toBeGreaterThan(0);
    } finally {
      await p.close();
    }
  });

  it('reads the rows before a carried batch that does not follow its cursor', async () => {
    const p = await listenerAndSender();
    try {
      // Stored without any notification: only a read of the store can deliver it.
      const { rows } = await sql<{ seq: number }>`
        insert into message (recipient, envelope, created_at, created_text)
        values ('alice', '"unannounced"', ${AT}, ${AT}) returning seq
      `.execute(store.db);
      const carried = await p.sender.store('alice', 'carried');
      await waitFor(() => p.heard.got.length === 2, 'both rows, in order');
      expect(p.heard.seqs).toEqual([rows[0]!.seq, carried.seq]);
      expect(p.heard.got[1]).toEqual(carried);
      expect(p.reads()).toBeGreaterThan(0);
    } finally {
      await p.close();
    }
  });

  it('announces nothing for a send that failed, and holds no lock afterwards', async () => {
    const one = await instance();
    try {
      const heard = recorder();
      one.pubsub.subscribe('ghost', heard);
      await expect(
        one.writer.send({ recipient: 'ghost', envelope: '"lost"', created_at: new Date() }),
      ).rejects.toThrow('handle not found');
      const after = await one.store('ghost', 'kept');
      await waitFor(() => heard.got.length >= 1, 'the stored message');
      expect(heard.got).toEqual([after]);
      const { rows } = await sql<{ n: number }>`
        select count(*)::int as n from pg_locks
        where locktype = 'advisory'
          and database = (select oid from pg_database where datname = current_database())
      `.execute(store.db);
      expect(rows).toEqual([{ n: 0 }]);
    } finally {
      await one.close();
    }
  });

  it('after losing its connection, reconnects and delivers what was stored while it was away', async () => {
    let gate: Promise<void> = Promise.resolve();
    let open = (): void => undefined;
    const listening = await instance(async () => {
      await gate;
      return store.pool!.connect();
    });
    const sender = await instance();
    try {
      const heard = recorder();
      listening.pubsub.subscribe('alice', heard);
      gate = new Promise((resolve) => {
        open = resolve;
      });
      await sql`
        select pg_terminate_backend(pid) from pg_stat_activity
        where query = ${`LISTEN ${NOTIFY_CHANNEL}`} and datname = current_database()
      `.execute(store.db);
      const missed = await sender.store('alice', 'while away');
      open();
      await waitFor(() => heard.got.length === 1, 'the missed message after reconnecting');
      const m = await sender.store('alice', 'after reconnecting');
      await waitFor(() => heard.got.length === 2, 'delivery after reconnecting');
      expect(heard.got).toEqual([missed, m]);
    } finally {
      await listening.close();
      await sender.close();
    }
  });
});
