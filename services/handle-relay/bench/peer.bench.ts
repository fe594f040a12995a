// bench:peer: the relay beside NATS JetStream on this machine, with one load generator for
// both and 100 live recipients. Latency of a send (POST /v1/messages, answered once the row is
// committed) or a JetStream publish (answered with its PubAck) to the recipient's frame or
// push delivery at 1,000 msg/s; the sustained rate with 64 sends in flight; the CPU each side
// spends per message (the relay and PostgreSQL; nats-server). Rounds alternate the two, and
// each round also runs JetStream's sustained phase twice (an A/A control of the ratio).
// Loopback only, bounded in time.
import { randomBytes } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { jetstream, jetstreamManager } from '@nats-io/jetstream';
import { connect, type NatsConnection } from '@nats-io/transport-node';
import { createTestDatabase } from '@svc/testing';
import { cpuMsOfAll, processCpuMs } from '@svc/testing/bench-cpu';
import { Pool } from 'undici';
import { databaseBackends, openStreams, registerHandles } from './bench-handles.js';
import { startRelayChild } from './relay-child.js';

const RATE = Number(process.env.BENCH_RATE ?? 1000);
const LATENCY_SECONDS = Number(process.env.BENCH_LATENCY_SECONDS ?? 5);
const SUSTAIN_SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const IN_FLIGHT = Number(process.env.BENCH_IN_FLIGHT ?? 64);
const NATS_URL = process.env.BENCH_NATS_URL ?? 'nats://127.0.0.1:4222';
const RECIPIENTS = 100;
const WARMUP_SECONDS = 1;
/** A delivery after this long past the phase's end no longer counts toward the rate. */
const DRAIN_MS = 5_000;
const PAD = 'p'.repeat(100);

const P99_TARGET_MS = 5;
const RATE_TARGET = 0.7;

/** One side of the comparison: how to send, and what its recipients heard. */
interface Side {
  name: string;
  /** Resolves once the message is acknowledged (stored). */
  send(to: number, body: string): Promise<void>;
  /** Server-side CPU ms so far, by process. */
  cpu(): Record<string, number>;
  /** Called right before each sustained phase. */
  settle?(): Promise<void>;
  close(): Promise<void>;
}

/** What the recipients record, shared by both sides' receivers. */
const heard = { received: 0, latencies: [] as number[], lastAt: 0 };

function onDelivery(json: string): void {
  const now = performance.now();
  const { t, w } = JSON.parse(json) as { t: number; w?: boolean };
  if (w) return;
  heard.received += 1;
  heard.latencies.push(now - t);
  heard.lastAt = now;
}

const pct = (v: number[], p: number) =>
  [...v].sort((a, b) => a - b)[Math.min(v.length - 1, Math.floor((v.length * p) / 100))] ?? NaN;
const median = (v: number[]) => pct(v, 50);

function body(w: boolean): string {
  return JSON.stringify({ t: performance.now(), pad: PAD, ...(w ? { w } : {}) });
}

/** `RATE` sends a second round-robin over the recipients: one unjudged second, then the judged. */
async function paced(side: Side, seconds: number): Promise<{ sent: number; failed: number }> {
  const start = performance.now();
  const warmup = WARMUP_SECONDS * RATE;
  let sent = 0;
  let failed = 0;
  const inflight = new Set<Promise<void>>();
  while (performance.now() - start < (WARMUP_SECONDS + seconds) * 1000) {
    const due = Math.floor(((performance.now() - start) / 1000) * RATE);
    while (sent < due) {
      const p: Promise<void> = side
        .send(sent % RECIPIENTS, body(sent < warmup))
        .catch(() => void (failed += 1))
        .finally(() => inflight.delete(p));
      inflight.add(p);
      sent += 1;
    }
    await new Promise((resolve) => setTimeout(resolve, 1));
  }
  await Promise.all(inflight);
  return { sent: sent - warmup, failed };
}

/** `IN_FLIGHT` sends always outstanding for `seconds`; answers acknowledged and delivered per second. */
async function sustained(side: Side, seconds: number) {
  // The backends now: the relay's pool closes idle connections and opens new ones.
  await side.settle?.();
  const start = performance.now();
  const end = start + seconds * 1000;
  const cpuBefore = side.cpu();
  const ownBefore = process.cpuUsage();
  const receivedBefore = heard.received;
  let acked = 0;
  let next = 0;
  await Promise.all(
    Array.from({ length: IN_FLIGHT }, async () => {
      while (performance.now() < end) {
        await side.send(next++ % RECIPIENTS, body(false));
        acked += 1;
      }
    }),
  );
  const ackedAt = performance.now();
  const target = receivedBefore + acked;
  while (heard.received < target && performance.now() < ackedAt + DRAIN_MS) {
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
  const delivered = heard.received - receivedBefore;
  const lastAt = Math.max(ackedAt, heard.lastAt);
  const cpuAfter = side.cpu();
  const own = process.cpuUsage(ownBefore);
  const cpuPerMessageUs = Object.fromEntries(
    Object.keys(cpuAfter).map((k) => [k, ((cpuAfter[k]! - cpuBefore[k]!) * 1000) / delivered]),
  );
  return {
    ackedPerS: acked / ((ackedAt - start) / 1000),
    deliveredPerS: delivered / ((lastAt - start) / 1000),
    lost: acked - delivered,
    cpuPerMessageUs,
    generatorUs: (own.user + own.system) / delivered,
  };
}

// ---------------------------------------------------------------- the relay

async function relaySide(dbUrl: string): Promise<Side> {
  const child = await startRelayChild({ dbUrl });
  const keys = await registerHandles(dbUrl, 'peer', RECIPIENTS);
  const closeStreams = await openStreams(keys, () => child.url, onDelivery);
  const pool = new Pool(child.url, { connections: IN_FLIGHT, pipelining: 1 });
  let backends: number[] = [];
  const bodies = keys.map((k) => `{"to":"${k.handle}","envelope":`);
  return {
    name: 'relay',
    send: async (to, envelope) => {
      const res = await pool.request({
        path: '/v1/messages',
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: `${bodies[to]}${envelope}}`,
      });
      await res.body.dump();
      if (res.statusCode !== 201) throw new Error(`send answered ${res.statusCode}`);
    },
    cpu: () => ({
      relay: child.cpuMs(),
      postgres: backends.reduce((sum, pid) => sum + processCpuMs(pid), 0),
    }),
    // Before each sustained phase: the backends it will use.
    settle: async () => {
      backends = await databaseBackends(dbUrl);
    },
    close: async () => {
      closeStreams();
      await pool.close();
      await child.stop();
    },
  };
}

// ---------------------------------------------------------------- NATS JetStream

async function jetStreamSide(): Promise<Side> {
  const id = randomBytes(4).toString('hex');
  const name = `PEER_${id}`;
  const publisher: NatsConnection = await connect({ servers: NATS_URL });
  const receiver: NatsConnection = await connect({ servers: NATS_URL });
  const jsm = await jetstreamManager(publisher);
  // A file-backed stream, as a durable store would be; push consumers, one per recipient.
  await jsm.streams.add({ name, subjects: [`peer.${id}.>`], storage: 'file' });
  for (let i = 0; i < RECIPIENTS; i++) {
    const deliver = `deliver.${id}.${i}`;
    receiver.subscribe(deliver, { callback: (_err, msg) => onDelivery(msg.string()) });
    await jsm.consumers.add(name, {
      durable_name: `r${i}`,
      deliver_subject: deliver,
      filter_subject: `peer.${id}.${i}`,
      ack_policy: 'none',
      deliver_policy: 'new',
    });
  }
  await receiver.flush();
  const js = jetstream(publisher);
  return {
    name: 'JetStream',
    send: async (to, payload) => {
      await js.publish(`peer.${id}.${to}`, payload);
    },
    cpu: () => ({ 'nats-server': cpuMsOfAll('nats-server') }),
    close: async () => {
      await jsm.streams.delete(name);
      await receiver.close();
      await publisher.close();
    },
  };
}

// ---------------------------------------------------------------- main

async function latencyPhase(side: Side) {
  heard.latencies = [];
  const receivedBefore = heard.received;
  const { sent, failed } = await paced(side, LATENCY_SECONDS);
  const deadline = performance.now() + DRAIN_MS;
  while (heard.received - receivedBefore < sent && performance.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
  return {
    sent,
    failed,
    received: heard.received - receivedBefore,
    p50: pct(heard.latencies, 50),
    p99: pct(heard.latencies, 99),
  };
}

type Latency = Awaited<ReturnType<typeof latencyPhase>>;
type Sustained = Awaited<ReturnType<typeof sustained>>;

async function main(): Promise<void> {
  const testDb = await createTestDatabase('bench_peer');
  if (testDb.target.kind !== 'postgres') {
    console.log('bench:peer needs PostgreSQL: set TEST_DATABASE_URL');
    process.exitCode = 2;
    return;
  }
  const relay = await relaySide(testDb.target.url);
  const js = await jetStreamSide();
  try {
    console.log(
      `bench:peer (${RECIPIENTS} live recipients; ${RATE} msg/s for ${LATENCY_SECONDS} s after ${WARMUP_SECONDS} s unjudged; ` +
        `sustained: ${IN_FLIGHT} in flight for ${SUSTAIN_SECONDS} s; ${ROUNDS} rounds alternating; loopback)`,
    );
    const lat = { relay: [] as Latency[], js: [] as Latency[] };
    const sus = { relay: [] as Sustained[], js: [] as Sustained[], aa: [] as Sustained[] };
    // Unjudged: both sides' first sends compile their paths.
    await sustained(relay, 1);
    await sustained(js, 1);
    for (let round = 0; round < ROUNDS; round++) {
      lat.relay.push(await latencyPhase(relay));
      lat.js.push(await latencyPhase(js));
      sus.js.push(await sustained(js, SUSTAIN_SECONDS));
      sus.relay.push(await sustained(relay, SUSTAIN_SECONDS));
      sus.aa.push(await sustained(js, SUSTAIN_SECONDS));
      const l = (x: Latency) =>
        `p50 ${x.p50.toFixed(2)} p99 ${x.p99.toFixed(2)} ms (${x.received}/${x.sent}, ${x.failed} failed)`;
      const r = (x: Sustained) =>
        `${x.deliveredPerS.toFixed(0)}/s delivered (${x.ackedPerS.toFixed(0)}/s acked, ${x.lost} not delivered)`;
      console.log(
        `  round ${round + 1}: relay ${l(lat.relay.at(-1)!)}; JetStream ${l(lat.js.at(-1)!)}`,
      );
      console.log(
        `           sustained: relay ${r(sus.relay.at(-1)!)}; JetStream ${r(sus.js.at(-1)!)}, again ${r(sus.aa.at(-1)!)}`,
      );
    }
    const relayP99 = median(lat.relay.map((x) => x.p99));
    const ratios = sus.relay.map((x, i) => x.deliveredPerS / sus.js[i]!.deliveredPerS);
    const aaRatios = sus.aa.map((x, i) => x.deliveredPerS / sus.js[i]!.deliveredPerS);
    const cpu = (xs: Sustained[]) => {
      const keys = Object.keys(xs[0]!.cpuPerMessageUs);
      return keys
        .map((k) => `${k} ${median(xs.map((x) => x.cpuPerMessageUs[k]!)).toFixed(0)} µs`)
        .join(' + ');
    };
    const lost =
      sus.relay.reduce((n, x) => n + x.lost, 0) +
      lat.relay.reduce((n, x) => n + x.sent - x.received + x.failed, 0);
    console.log(`\nmedians over ${ROUNDS} rounds                       relay        JetStream`);
    console.log(
      `p50 / p99 at ${RATE} msg/s (ms)              ${median(lat.relay.map((x) => x.p50)).toFixed(2)} / ${relayP99.toFixed(2)}    ${median(lat.js.map((x) => x.p50)).toFixed(2)} / ${median(lat.js.map((x) => x.p99)).toFixed(2)}` +
        `   target relay p99 ≤ ${P99_TARGET_MS} ms ${relayP99 <= P99_TARGET_MS ? 'ok' : 'MISSED'}`,
    );
    console.log(
      `sustained, delivered/s                     ${median(sus.relay.map((x) => x.deliveredPerS))
        .toFixed(0)
        .padStart(6)}       ${median(sus.js.map((x) => x.deliveredPerS))
        .toFixed(0)
        .padStart(6)}` +
        `   ratio ${median(ratios).toFixed(2)} (rounds ${ratios.map((x) => x.toFixed(2)).join(' / ')}; A/A JetStream ${aaRatios.map((x) => x.toFixed(2)).join(' / ')}) ≥ ${RATE_TARGET} ${median(ratios) >= RATE_TARGET ? 'ok' : 'MISSED'}`,
    );
    console.log(`CPU per message (sustained)                ${cpu(sus.relay)}    ${cpu(sus.js)}`);
    console.log(
      `load generator CPU per message             ${median(sus.relay.map((x) => x.generatorUs)).toFixed(0)} µs    ${median(sus.js.map((x) => x.generatorUs)).toFixed(0)} µs`,
    );
    console.log(`relay messages acknowledged but not delivered: ${lost}`);
    console.log(
      'durability: a relay send is answered after its commit (synchronous_commit on: WAL flushed); a JetStream PubAck after the write to its file store (fsync every 2 min by default)',
    );
  } finally {
    await relay.close();
    await js.close();
    await testDb.drop();
  }
}

await main();
// Everything is printed and put away; a handle left behind must not keep the bench lock held.
process.exit(process.exitCode ?? 0);
