// bench:scale: relay sends/s with N = 1, 2, 3 instances, each in a cgroup of its own capped at
// 0.4 CPU (cgroup v1 cpu.cfs_quota_us), fanning out through NATS; the load generator,
// PostgreSQL and NATS uncapped. Judged: sends(N) ≥ 0.85 × N × sends(1), measured in one run
// (phases in the order 1,2,3,3,2,1, each N judged on its median). Then send → SSE latency at
// BENCH_RATE msg/s with 100 live streams spread over the 3 capped instances (p99 ≤ 15 ms).
// Every phase prints what each process used, so a miss names what saturated. Loopback only.
import { performance } from 'node:perf_hooks';
import { createTestDatabase } from '@svc/testing';
import { CpuCap, measurePhase, processCpuMs, saturated, usageLine } from '@svc/testing/bench-cpu';
import autocannon from 'autocannon';
import { Pool } from 'undici';
import { databaseBackends, openStreams, registerHandles } from './bench-handles.js';
import { startRelayChild, type RelayChild } from './relay-child.js';

const CPUS = Number(process.env.BENCH_CPUS ?? 0.4);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
const WARMUP_SECONDS = Number(process.env.BENCH_WARMUP_SECONDS ?? 2);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 16);
const RATE = Number(process.env.BENCH_RATE ?? 1000);
const LATENCY_SECONDS = Number(process.env.BENCH_LATENCY_SECONDS ?? 5);
const NATS_URL = process.env.BENCH_NATS_URL ?? 'nats://127.0.0.1:4222';
const INSTANCES = 3;
const HANDLES = 100;
const SCALE_TARGET = 0.85;
const P99_TARGET_MS = 15;

async function main(): Promise<void> {
  const testDb = await createTestDatabase('bench_scale');
  if (testDb.target.kind !== 'postgres') {
    console.log('bench:scale needs PostgreSQL: set TEST_DATABASE_URL');
    process.exitCode = 2;
    return;
  }
  const dbUrl = testDb.target.url;
  const caps = Array.from({ length: INSTANCES }, (_, i) =>
    CpuCap.create(`bench-scale-relay-${i}`, CPUS),
  );
  if (caps.some((c) => !c)) {
    console.log(
      'bench:scale needs a writable cgroup v1 CPU controller at /sys/fs/cgroup/cpu (root)',
    );
    process.exitCode = 2;
    await testDb.drop();
    return;
  }
  const groups = caps as CpuCap[];
  const relays: RelayChild[] = [];
  try {
    for (const cap of groups) {
      relays.push(
        await startRelayChild({ dbUrl, config: { pubsub: 'nats', nats_url: NATS_URL }, cap }),
      );
    }
    const handles = await registerHandles(dbUrl, 'scale', HANDLES);
    const bodies = handles.map((h) =>
      JSON.stringify({ to: h.handle, envelope: { ct: 'x'.repeat(88) } }),
    );
    /** N instances, each sent to by its own autocannon; answers sends/s in all. */
    const phase = async (n: number, seconds: number) => {
      const runs = await Promise.all(
        relays.slice(0, n).map((r) => {
          let next = 0;
          return autocannon({
            url: `${r.url}/v1/messages`,
            connections: CONNECTIONS,
            duration: seconds,
            requests: [
              {
                method: 'POST',
                headers: { 'content-type': 'application/json' },
                setupRequest: (req) => ({ ...req, body: bodies[next++ % bodies.length] }),
              },
            ],
          });
        }),
      );
      const failed = runs.reduce((s, r) => s + r.non2xx + r.errors, 0);
      return { rate: runs.reduce((s, r) => s + r.requests.total / r.duration, 0), failed };
    };
    console.log(
      `bench:scale (relay; ${INSTANCES} instances on NATS, each capped at ${CPUS} CPU in its own cgroup; ` +
        `${CONNECTIONS} connections per instance; ${SECONDS} s phases after ${WARMUP_SECONDS} s unjudged; loopback)`,
    );
    for (const n of [1, 2, 3]) await phase(n, WARMUP_SECONDS);
    const rates = new Map<number, number[]>([
      [1, []],
      [2, []],
      [3, []],
    ]);
    for (const n of [1, 2, 3, 3, 2, 1]) {
      const { result, usage } = await measurePhase(
        relays.map((r) => r.proc.pid!),
        groups,
        () => phase(n, SECONDS),
      );
      rates.get(n)!.push(result.rate);
      console.log(
        `  N=${n}: ${result.rate.toFixed(0)} sends/s (${result.failed} failed) — ${usageLine(usage, n, 'relays')}; bound: ${saturated(usage, n, CPUS, 'relays')}`,
      );
    }
    const median = (v: number[]) => [...v].sort((a, b) => a - b)[Math.floor(v.length / 2)]!;
    const mean = (v: number[]) => v.reduce((a, b) => a + b, 0) / v.length;
    const one = mean(rates.get(1)!);
    console.log(`\nsends/s (mean of 2 phases)   measured   N × one   ratio   target`);
    for (const n of [1, 2, 3]) {
      const r = mean(rates.get(n)!);
      const ratio = r / (n * one);
      console.log(
        `  N=${n}`.padEnd(29) +
          `${r.toFixed(0).padStart(8)}  ${(n * one).toFixed(0).padStart(8)}   ${ratio.toFixed(2)}   ` +
          (n === 1
            ? '(baseline)'
            : `≥ ${SCALE_TARGET} ${ratio >= SCALE_TARGET ? 'ok' : 'MISSED'}`) +
          ` (phases ${rates
            .get(n)!
            .map((x) => x.toFixed(0))
            .join(' / ')}, median ${median(rates.get(n)!).toFixed(0)})`,
      );
    }

    // Latency: streams spread over the three instances, sends round-robin over them too.
    const latencies: number[] = [];
    let recording = false;
    const closeStreams = await openStreams(
      handles,
      (i) => relays[i % INSTANCES]!.url,
      (json) => {
        const { t, w } = JSON.parse(json) as { t?: number; w?: number };
        // The warm-up's frames (marked `w`) are not judged.
        if (recording && t !== undefined && !w) latencies.push(performance.now() - t);
      },
    );
    const pools = relays.map((r) => new Pool(r.url, { connections: 32 }));
    const paced = async (seconds: number, warmup = false) => {
      const start = performance.now();
      let sent = 0;
      const inflight = new Set<Promise<void>>();
      while (performance.now() - start < seconds * 1000) {
        const due = Math.floor(((performance.now() - start) / 1000) * RATE);
        while (sent < due) {
          const to = handles[sent % HANDLES]!.handle;
          const p: Promise<void> = pools[sent % INSTANCES]!.request({
            path: '/v1/messages',
            method: 'POST',
            headers: { 'content-type': 'application/json' },
            body: JSON.stringify({
              to,
              envelope: { t: performance.now(), pad: 'p'.repeat(100), ...(warmup ? { w: 1 } : {}) },
            }),
          })
            .then((res) => res.body.dump())
            .finally(() => inflight.delete(p));
          inflight.add(p);
          sent += 1;
        }
        await new Promise((resolve) => setTimeout(resolve, 1));
      }
      await Promise.all(inflight);
      return sent;
    };
    recording = true;
    await paced(1, true);
    const { result: sent, usage } = await measurePhase(
      relays.map((r) => r.proc.pid!),
      groups,
      () => paced(LATENCY_SECONDS),
      () => databaseBackends(dbUrl),
    );
    await new Promise((resolve) => setTimeout(resolve, 500));
    recording = false;
    closeStreams();
    await Promise.all(pools.map((p) => p.close()));
    const sorted = [...latencies].sort((a, b) => a - b);
    const p = (q: number) =>
      sorted[Math.min(sorted.length - 1, Math.floor((sorted.length * q) / 100))]!;
    console.log(
      `\nsend → SSE frame at ${RATE} msg/s, ${HANDLES} streams over ${INSTANCES} capped instances on NATS: ` +
        `p50 ${p(50).toFixed(2)} ms, p99 ${p(99).toFixed(2)} ms (${latencies.length}/${sent} frames) ` +
        `target p99 ≤ ${P99_TARGET_MS} ms ${p(99) <= P99_TARGET_MS && latencies.length === sent ? 'ok' : 'MISSED'}`,
    );
    console.log(
      `  ${usageLine(usage, INSTANCES, 'relays')}; bound: ${saturated(usage, INSTANCES, CPUS, 'relays')}`,
    );
    console.log(
      `  (relay pids ${relays.map((r) => `${r.proc.pid} ${processCpuMs(r.proc.pid!).toFixed(0)} ms`).join(', ')})`,
    );
  } finally {
    for (const r of relays) await r.stop();
    for (const c of groups) c.remove();
    await testDb.drop();
  }
}

await main();
// Everything is printed and put away; a handle left behind must not keep the bench lock held.
process.exit(process.exitCode ?? 0);
