import type { DatabaseHandle } from '@svc/config/database';
import { createTestDatabase, testDatabaseMode, type TestDatabase } from '@svc/config/testing';
import { createLogger } from '@svc/envelope';
import { sql } from 'kysely';
import { openStore, type Database } from '../src/db/database.js';
import type { RelayedMessage } from '../src/messages/message.model.js';
import { createMemoryPubSub } from '../src/pubsub/memory.pubsub.js';
import { createPostgresPubSub, NOTIFY_CHANNEL } from '../src/pubsub/postgres.pubsub.js';
import type { PubSub } from '../src/pubsub/pubsub.port.js';
import { pubSubContract, recorder, relayed, type PubSubFixture } from './pubsub.contract.js';
import { waitFor } from './wait-for.js';

const logger = createLogger('pubsub-test', 'silent');

pubSubContract('in-process', () => {
  const pubsub = createMemoryPubSub();
  return Promise.resolve({
    pubsub,
    // The in-process adapter never touches the transaction it is given.
    publish: (handle, message) => pubsub.publish(handle, message, undefined as never),
    remember: () => Promise.resolve(),
    close: () => pubsub.close(),
  });
});

const server = testDatabaseMode() === 'postgres';
const describeServer = server ? describe : describe.skip;

let testDb: TestDatabase | undefined;
let store: DatabaseHandle<Database> | undefined;
const known = new Map<number, RelayedMessage>();

async function pgPubSub(): Promise<PubSub> {
  const pool = store!.pool!;
  return createPostgresPubSub({
    connect: () => pool.connect(),
    loadMessage: (seq) => Promise.resolve(known.get(seq)),
    logger,
  });
}

function publishWith(pubsub: PubSub) {
  return (handle: string, message: RelayedMessage) =>
    store!.db.transaction().execute((trx) => pubsub.publish(handle, message, trx));
}

if (server) {
  beforeAll(async () => {
    testDb = await createTestDatabase('pubsub');
    store = await openStore(testDb.target);
  });
  afterAll(async () => {
    await store?.close();
    await testDb?.drop();
  });

  pubSubContract('LISTEN/NOTIFY', async (): Promise<PubSubFixture> => {
    const pubsub = await pgPubSub();
    return {
      pubsub,
      publish: publishWith(pubsub),
      remember: (m) => {
        known.set(m.seq, m);
        return Promise.resolve();
      },
      close: () => pubsub.close(),
    };
  });
}

describeServer('LISTEN/NOTIFY across instances', () => {
  it('delivers a message published by one instance to listeners of another', async () => {
    const one = await pgPubSub();
    const two = await pgPubSub();
    try {
      const heard = recorder();
      two.subscribe('alice', heard);
      const m = relayed('alice', { across: true });
      await publishWith(one)('alice', m);
      await waitFor(() => heard.got.length === 1, 'the other instance');
      expect(heard.got).toEqual([m]);
    } finally {
      await one.close();
      await two.close();
    }
  });

  it('delivers nothing when the sending transaction rolls back', async () => {
    const pubsub = await pgPubSub();
    try {
      const heard = recorder();
      pubsub.subscribe('alice', heard);
      await expect(
        store!.db.transaction().execute(async (trx) => {
          await pubsub.publish('alice', relayed('alice'), trx);
          throw new Error('abort');
        }),
      ).rejects.toThrow('abort');
      const after = relayed('alice');
      await publishWith(pubsub)('alice', after);
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
      `.execute(store!.db);
      await waitFor(() => heard.resyncs === 1, 'a resync after reconnecting');
      const m = relayed('alice');
      await publishWith(pubsub)('alice', m);
      await waitFor(() => heard.got.length === 1, 'delivery after reconnecting');
      expect(heard.got).toEqual([m]);
    } finally {
      await pubsub.close();
    }
  });
});
