import type { DatabaseHandle } from '@svc/config/database';
import { createTestDatabase, testDatabaseMode, type TestDatabase } from '@svc/config/testing';
import { createLogger } from '@svc/envelope';
import { sql } from 'kysely';
import { openStore, type Database } from '../src/db/database.js';
import { toRelayed, type RelayedMessage } from '../src/messages/message.model.js';
import { findMessage, insertMessageLocked } from '../src/messages/message.repository.js';
import { createMemoryPubSub } from '../src/pubsub/memory.pubsub.js';
import { createPostgresPubSub, NOTIFY_CHANNEL } from '../src/pubsub/postgres.pubsub.js';
import type { PubSub } from '../src/pubsub/pubsub.port.js';
import { pubSubContract, recorder, type PubSubFixture } from './pubsub.contract.js';
import { SETUP_TIMEOUT_MS } from './test-app.js';
import { waitFor } from './wait-for.js';

const logger = createLogger('pubsub-test', 'silent');

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
      await pubsub.publish(handle, m);
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

/** The send path on a server: one locked insert (the trigger announces it), then publish. */
async function storeVia(
  pubsub: PubSub,
  handle: string,
  envelope: unknown,
): Promise<RelayedMessage> {
  await sql`insert into handle (handle, primary_key, registered_at)
            values (${handle}, ${`ed25519:${handle}`}, now()) on conflict do nothing`.execute(
    store.db,
  );
  const m = toRelayed(
    await insertMessageLocked(store.db, {
      recipient: handle,
      envelope: JSON.stringify(envelope),
      created_at: new Date(),
    }),
  );
  await pubsub.publish(handle, m);
  return m;
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

  it('announces nothing for an insert whose transaction rolls back', async () => {
    const pubsub = await pgPubSub();
    try {
      const heard = recorder();
      pubsub.subscribe('alice', heard);
      await expect(
        store.db.transaction().execute(async (trx) => {
          await insertMessageLocked(trx, {
            recipient: 'alice',
            envelope: '"lost"',
            created_at: new Date(),
          });
          throw new Error('abort');
        }),
      ).rejects.toThrow('abort');
      const after = await storeVia(pubsub, 'alice', 'kept');
      await waitFor(() => heard.got.length >= 1, 'the committed message');
      expect(heard.got).toEqual([after]);
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
