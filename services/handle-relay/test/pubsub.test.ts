import type { DatabaseHandle } from '@svc/config/database';
import { createTestDatabase, testDatabaseMode, type TestDatabase } from '@svc/config/testing';
import { createLogger } from '@svc/envelope';
import { sql, type Kysely } from 'kysely';
import { openStore, type Database } from '../src/db/database.js';
import { toRelayed, type RelayedMessage } from '../src/messages/message.model.js';
import { findMessage } from '../src/messages/message.repository.js';
import { storeAndPublish } from '../src/messages/message.service.js';
import { createMemoryPubSub } from '../src/pubsub/memory.pubsub.js';
import { createPostgresPubSub, NOTIFY_CHANNEL } from '../src/pubsub/postgres.pubsub.js';
import type { PubSub } from '../src/pubsub/pubsub.port.js';
import { pubSubContract, recorder, type PubSubFixture } from './pubsub.contract.js';
import { SETUP_TIMEOUT_MS } from './test-app.js';
import { waitFor } from './wait-for.js';

const logger = createLogger('pubsub-test', 'silent');

/** The in-process adapter never touches the connection it is given. */
const noConnection = undefined as unknown as Kysely<Database>;

pubSubContract('in-process', () => {
  const pubsub = createMemoryPubSub();
  let seq = 0;
  return Promise.resolve({
    pubsub,
    store: async (handle, envelope) => {
      seq += 1;
      const m = {
        seq,
        recipient: handle,
        envelopeJson: JSON.stringify(envelope),
        createdAt: new Date().toISOString(),
      };
      await pubsub.publish(handle, m, noConnection);
      return m;
    },
    close: () => pubsub.close(),
  });
});

const server = testDatabaseMode() === 'postgres';
const describeServer = server ? describe : describe.skip;

let testDb: TestDatabase | undefined;
let store: DatabaseHandle<Database>;

async function pgPubSub(): Promise<PubSub> {
  const pool = store.pool!;
  return createPostgresPubSub({
    connect: () => pool.connect(),
    loadMessage: async (seq) => {
      const row = await findMessage(store.db, seq);
      return row && toRelayed(row);
    },
    logger,
  });
}

/** The send path on a server (creating the recipient first when needed). */
async function storeVia(
  pubsub: PubSub,
  handle: string,
  envelope: unknown,
): Promise<RelayedMessage> {
  await sql`
    insert into handle (handle, primary_key, registered_at)
    values (${handle}, ${`ed25519:${handle}`}, now()) on conflict do nothing
  `.execute(store.db);
  const { message } = await storeAndPublish(
    { db: store.db, pubsub },
    { recipient: handle, envelope: JSON.stringify(envelope), created_at: new Date() },
  );
  return message;
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

  pubSubContract('LISTEN/NOTIFY', async (): Promise<PubSubFixture> => {
    const pubsub = await pgPubSub();
    return {
      pubsub,
      store: (handle, envelope) => storeVia(pubsub, handle, envelope),
      close: () => pubsub.close(),
    };
  });
}

describeServer('LISTEN/NOTIFY across instances', () => {
  it('delivers a message stored through one instance to listeners of another', async () => {
    const one = await pgPubSub();
    const two = await pgPubSub();
    try {
      const heard = recorder();
      two.subscribe('alice', heard);
      const m = await storeVia(one, 'alice', { across: true });
      await waitFor(() => heard.got.length === 1, 'the other instance');
      expect(heard.got).toEqual([m]);
    } finally {
      await one.close();
      await two.close();
    }
  });

  it('announces nothing for a send that failed, and the recipient lock is released', async () => {
    const pubsub = await pgPubSub();
    try {
      const heard = recorder();
      pubsub.subscribe('ghost', heard);
      await expect(
        storeAndPublish(
          { db: store.db, pubsub },
          { recipient: 'ghost', envelope: '"lost"', created_at: new Date() },
        ),
      ).rejects.toThrow('handle not found');
      const after = await storeVia(pubsub, 'ghost', 'kept');
      await waitFor(() => heard.got.length >= 1, 'the stored message');
      expect(heard.got).toEqual([after]);
      const { rows } = await sql<{ n: number }>`
        select count(*)::int as n from pg_locks
        where locktype = 'advisory'
          and database = (select oid from pg_database where datname = current_database())
      `.execute(store.db);
      expect(rows).toEqual([{ n: 0 }]);
    } finally {
      await pubsub.close();
    }
  });

  it('reconnects after losing its connection and asks listeners to resync', async () => {
    const pubsub = await pgPubSub();
    try {
      const heard = recorder();
      pubsub.subscribe('alice', heard);
      await sql`
        select pg_terminate_backend(pid) from pg_stat_activity
        where query = ${`LISTEN ${NOTIFY_CHANNEL}`} and datname = current_database()
      `.execute(store.db);
      await waitFor(() => heard.resyncs === 1, 'a resync after reconnecting');
      const m = await storeVia(pubsub, 'alice', 'after reconnecting');
      await waitFor(() => heard.got.length === 1, 'delivery after reconnecting');
      expect(heard.got).toEqual([m]);
    } finally {
      await pubsub.close();
    }
  });
});
