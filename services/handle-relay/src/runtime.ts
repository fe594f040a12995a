import type { DatabaseHandle } from '@svc/database';
import type { Logger } from 'pino';
import type { Config } from './config.js';
import type { Database } from './db/database.js';
import { databaseIdentity } from './db/database-identity.js';
import { createMemoryPubSub } from './pubsub/memory.pubsub.js';
import { createNatsPubSub } from './pubsub/nats.pubsub.js';
import { createPostgresPubSub } from './pubsub/postgres.pubsub.js';
import type { PubSub } from './pubsub/pubsub.port.js';
import { PushNotifier } from './push/push-notifier.js';
import type { PushSender } from './push/push-sender.port.js';
import { loadOrCreateVapidKeys } from './push/vapid-keys.js';
import { createWebPushSender } from './push/web-push.sender.js';
import { StreamHub } from './stream/stream-hub.js';
import { primaryKeysOf } from './handles/handle.repository.js';
import { listenForRotations } from './sigchain/rotation-listener.js';
import { loadOrCreateLogKey } from './translog/log-key.js';
import { LogService } from './translog/log.service.js';
import { RelayMetrics } from './metrics/relay-metrics.js';
import type { BucketStoreFactory } from './rate-limit/bucket-store.port.js';
import { memoryBucketStores, postgresBucketStores } from './rate-limit/bucket-stores.js';
import { MessageWriter } from './messages/message-writer.js';
import { toRelayed } from './messages/message.model.js';
import {
  latestSeq,
  latestStoredSeq,
  listAllMessagesAfter,
  listMessagesAfter,
} from './messages/message.repository.js';

/** The long-lived parts of messaging: the writer, pub/sub, open streams and push fan-out. */
export interface RelayRuntime {
  writer: MessageWriter;
  pubsub: PubSub;
  streams: StreamHub;
  push: PushNotifier;
  vapidPublicKey: string;
  /** The transparency log's signed heads and proofs, and its key's state. */
  log: LogService;
  /** A rotation committed (here or, heard through PostgreSQL, elsewhere): ends the old key's streams. */
  rotated(handle: string, oldKey: string): void;
  /** True on a PostgreSQL server: rotations ring the other instances at commit. */
  instancesShareRotations: boolean;
  /** `/metrics`: the app serves the series the runtime's parts report to. */
  metrics: RelayMetrics;
  /** Where rate-limit buckets are kept: the server (shared by instances), else memory. */
  rateBuckets: BucketStoreFactory;
  /** Ends the open streams; call before waiting for in-flight requests at shutdown. */
  closeStreams(): Promise<void>;
  /** Ends everything (queued sends, streams, push deliveries, the LISTEN connection). */
  close(): Promise<void>;
}

/** What the runtime is built from; tests shorten the ping and swap the push sender. */
export interface RelayRuntimeOptions {
  config: Config;
  store: DatabaseHandle<Database>;
  logger: Logger;
  now: () => number;
  pingIntervalMs?: number;
  pushSender?: PushSender;
  /** Built here when absent. */
  metrics?: RelayMetrics;
}

/**
 * Builds the messaging runtime: LISTEN/NOTIFY (or NATS, with `pubsub: nats`) fan-out and
 * rate-limit buckets on a Postgres server (so every instance's streams hear every send, and every instance spends one budget
 * per client address), in-process on the embedded database.
 */
export async function createRelayRuntime(options: RelayRuntimeOptions): Promise<RelayRuntime> {
  const { config, store, logger } = options;
  const db = store.db;
  const metrics = options.metrics ?? new RelayMetrics();
  const vapid = loadOrCreateVapidKeys(config.vapid_key_path);
  const pool = store.pool;
  const fromStore = {
    readAfter: async (afterSeq: number, limit: number) =>
      (await listAllMessagesAfter(db, afterSeq, limit)).map(toRelayed),
    latestSeq: () => latestStoredSeq(db),
    logger,
  };
  const pubsub: PubSub = !pool
    ? createMemoryPubSub()
    : config.pubsub === 'nats'
      ? await createNatsPubSub({
          ...fromStore,
          servers: config.nats_url,
          subject: `handle_relay.messages.${await databaseIdentity(db)}`,
        })
      : await createPostgresPubSub({ ...fromStore, connect: () => pool.connect() });
  const streams = new StreamHub({
    pubsub,
    readAfter: async (handle, afterSeq, limit) =>
      (await listMessagesAfter(db, handle, afterSeq, limit)).map(toRelayed),
    latestSeq: (handle) => latestSeq(db, handle),
    keysOf: (handles) => primaryKeysOf(db, handles),
    logger,
    now: options.now,
    pingIntervalMs: options.pingIntervalMs,
    metrics,
  });
  metrics.collectFrom({ openStreams: () => streams.size });
  const sender =
    options.pushSender ??
    createWebPushSender({
      keys: vapid,
      subject: config.vapid_subject ?? `mailto:admin@${config.server}`,
      allowPrivate: config.push_allow_private_endpoints,
    });
  const push = new PushNotifier({ db, sender, logger, metrics });
  const logKey = loadOrCreateLogKey(config.log_key_path);
  const log = new LogService({ db, logKey, now: options.now });
  await log.checkKey(logger, logKey.created);
  const rotated = (handle: string, oldKey: string): void => streams.closeKey(handle, oldKey);
  const stopRotations = pool
    ? await listenForRotations({
        connect: () => pool.connect(),
        rotated,
        // Rotations committed while the connection was down rang nobody here.
        caughtUp: async () => {
          const closed = await streams.closeStale();
          if (closed > 0)
            logger.info({ closed }, 'closed streams of keys rotated while LISTEN was down');
        },
        logger,
      })
    : () => Promise.resolve();
  const writer = new MessageWriter({ db, pubsub, logger, metrics });
  return {
    writer,
    pubsub,
    streams,
    push,
    vapidPublicKey: vapid.publicKey,
    log,
    rotated,
    instancesShareRotations: !!pool,
    metrics,
    rateBuckets: pool ? postgresBucketStores(db, options.now) : memoryBucketStores(options.now),
    closeStreams: () => streams.close(),
    close: async () => {
      await writer.stop();
      await stopRotations();
      await streams.close();
      await push.close();
      await pubsub.close();
    },
  };
}
