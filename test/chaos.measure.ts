// The chaos run (issue 41): 3 asset-store and 3 handle-relay processes (the built dist) on
// one PostgreSQL of the run's own, the asset stores on the S3 gateway in S3_ENDPOINT, under
// a client load of ingests, PATCH/trash/restore, tus uploads, sends, inbox reads and live
// streams, while a nemesis kills, stops and cuts them off (test/chaos/nemesis.ts). Then
// every fault is healed, everything is read back, and it prints what it did, the faults by
// kind and every anomaly found; it exits 1 on any anomaly (2 when it cannot run).
// Run: pnpm measure:chaos [--seconds N] (default 300; CI runs a short one).
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { DeleteBucketCommand } from '@aws-sdk/client-s3';
import { testS3 } from '@svc/testing';
import { freePort } from '@svc/testing/service-process';
import { AssetLoad } from './chaos/asset-load.js';
import { bucketState, checkAssets, checkerS3 } from './chaos/check-assets.js';
import { checkChanges } from './chaos/check-changes.js';
import { checkRelay, readInbox } from './chaos/check-relay.js';
import { Instance, RELAY_PUBSUB } from './chaos/cluster.js';
import { deleteObjectsUnder } from '../services/asset-store/src/storage/s3/s3-client.js';
import { sleep, Tally, type Anomaly } from './chaos/http.js';
import { Nemesis } from './chaos/nemesis.js';
import { PostgresServer } from './chaos/postgres-server.js';
import { RelayLoad } from './chaos/relay-load.js';

// The SDK's notice that its 2027 releases need Node 22 is not this run's business.
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';
const seconds = Number(process.argv[process.argv.indexOf('--seconds') + 1] ?? 0) || 300;
const s3 =
  testS3() ??
  (() => {
    console.error('chaos: needs an S3 gateway: set S3_ENDPOINT (source /work/s3dev/s3.env)');
    return process.exit(2);
  })();
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'chaos-run-'));
const bucket = `chaos-${randomBytes(5).toString('hex')}`;
const log = (text: string) => console.log(`chaos [${Math.round(process.uptime())} s] ${text}`);

const stores: Instance[] = [];
const relays: Instance[] = [];
const all: Instance[] = [];
const anomalies: Anomaly[] = [];
const tally = new Tally();
let nemesis: Nemesis | undefined;
let exitCode = 0;
let postgres: PostgresServer | undefined;
let tornDown: Promise<void> | undefined;

/** Stops the instances and the run's PostgreSQL (a daemon of its own), drops the bucket. */
function tearDown(): Promise<void> {
  tornDown ??= (async () => {
    await nemesis?.stop().catch(() => undefined);
    await Promise.all(all.map((i) => i.close()));
    await postgres?.destroy();
    const client = checkerS3(s3);
    await deleteObjectsUnder(client, bucket, '').catch(() => undefined);
    await client.send(new DeleteBucketCommand({ Bucket: bucket })).catch(() => undefined);
    client.destroy();
    if (exitCode === 0) fs.rmSync(dir, { recursive: true, force: true });
    else log(`the instances' logs and storage roots are kept in ${dir}`);
  })();
  return tornDown;
}

// Stopped from outside (CI's cleanup, ^C): nothing of the run outlives it.
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    exitCode = 2;
    void tearDown().finally(() => process.exit(130));
  });
}

try {
  postgres = await PostgresServer.start(await freePort());
  const parts = {
    databaseUrl: postgres.url(),
    s3,
    bucket,
    natsUrl: process.env.NATS_URL ?? 'nats://127.0.0.1:4222',
    dir,
  };
  for (let i = 1; i <= 3; i++) {
    stores.push(await Instance.create(`asset-store-${i}`, 'asset-store', parts));
    relays.push(await Instance.create(`handle-relay-${i}`, 'handle-relay', parts));
  }
  all.push(...stores, ...relays);
  // The first of each kind migrates its schema; the others start once it serves.
  for (const first of [stores[0]!, relays[0]!]) first.start();
  await Promise.all([stores[0]!.waitHealthy(), relays[0]!.waitHealthy()]);
  for (const i of [stores[1]!, stores[2]!, relays[1]!, relays[2]!]) i.start();
  await Promise.all(all.map((i) => i.waitHealthy()));
  log(
    `6 instances up (relays on ${RELAY_PUBSUB} pub/sub), PostgreSQL on port ${postgres.port}, bucket ${bucket}; ${seconds} s of faults`,
  );

  const assets = new AssetLoad(stores, tally);
  const relay = new RelayLoad(relays, tally);
  await relay.register(6);
  const began = Date.now();
  assets.start(2);
  relay.start(2);
  nemesis = new Nemesis(all, postgres, began);
  nemesis.start();
  for (const end = began + seconds * 1000; Date.now() < end;) {
    await sleep(Math.min(30_000, end - Date.now()));
    log(
      `${assets.acked.length} ingests and ${relay.acked.length} sends acknowledged, ` +
        `${nemesis.faults.length} faults`,
    );
  }

  log('healing every fault');
  await nemesis.stop();
  for (const i of all) await i.heal();
  await Promise.all(all.map((i) => i.waitHealthy(120_000)));
  await assets.stop();
  await relay.stopSending();

  log('reading everything back');
  const inboxes = new Map<string, Awaited<ReturnType<typeof readInbox>>>();
  for (const user of relay.users) inboxes.set(user.handle, await readInbox(relays[0]!, user));
  const last = new Map([...inboxes].map(([handle, inbox]) => [handle, inbox.at(-1)?.seq ?? 0]));
  await relay.streamsCaughtUp(last, 30_000);
  await relay.closeStreams();
  // What an outage kept from being removed goes once S3 answers (every 2 s): let it.
  const client = checkerS3(s3);
  for (let i = 0; i < 30; i++) {
    const state = await bucketState(client, bucket);
    if (state.staged.length === 0 && state.uploads.length === 0) break;
    await sleep(1_000);
  }
  client.destroy();

  const assetCheck = await checkAssets(stores, assets, s3, bucket);
  const relayCheck = checkRelay(relay, inboxes);
  const changes = await checkChanges(stores[0]!, assetCheck.records);
  anomalies.push(...assetCheck.anomalies, ...relayCheck.anomalies, ...(changes?.anomalies ?? []));
  // Every request of the load is well formed: a 4xx tells its client not to try again.
  for (const [kind, { count, first }] of Object.entries(tally.refusals)) {
    for (let n = 0; n < count; n++) {
      anomalies.push({
        kind: 'a good request answered 4xx',
        detail: `${kind}: ${first[n] ?? first[0]}`,
      });
    }
  }

  const faults: Record<string, number> = {};
  for (const f of nemesis.faults) faults[f.kind] = (faults[f.kind] ?? 0) + 1;
  const byKind: Record<string, string[]> = {};
  for (const a of anomalies) (byKind[a.kind] ??= []).push(a.detail);
  const report = {
    seconds,
    instances: { 'asset-store': 3, 'handle-relay': 3, relay_pubsub: RELAY_PUBSUB },
    operations: tally.counts,
    refusals_4xx: tally.refusals,
    faults,
    fault_log: nemesis.faults,
    figures: {
      ...assetCheck.figures,
      ...relayCheck.figures,
      large_and_tus_mib_sent: Math.round(assets.largeBytes / 2 ** 20),
      change_feed: changes ? `${changes.events} events checked` : 'not on this build (no /changes)',
    },
    anomalies: anomalies.length,
    anomalies_by_kind: Object.fromEntries(
      Object.entries(byKind).map(([kind, details]) => [
        kind,
        { count: details.length, first: details.slice(0, 5) },
      ]),
    ),
  };
  console.log(JSON.stringify(report, null, 2));
  exitCode = anomalies.length > 0 ? 1 : 0;
} catch (err) {
  console.error(
    `chaos: the run failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`,
  );
  exitCode = 2;
} finally {
  await tearDown();
}
process.exit(exitCode);
