// bench:log: inclusion and consistency proofs of the transparency log at 1,000,000 leaves
// (BENCH_LOG_LEAVES), through the real app over loopback HTTP, one request at a time.
// The tree is built straight into the tables (the append code's own merkle-tree functions,
// unnest inserts), then proofs for random leaves and sizes are timed. Target: p99 ≤ 10 ms.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { sql } from 'kysely';
import { createTestDatabase } from '@svc/testing';
import { leafHash, toHex, verifyInclusion } from '../src/client/index.js';
import { appendLeaves, frontier, nodeKey } from '../src/translog/merkle-tree.js';
import { openStore } from '../src/db/database.js';
import { startBenchRelay } from './bench-relay.js';

const LEAVES = Number(process.env.BENCH_LOG_LEAVES ?? 1_000_000);
const REQUESTS = Number(process.env.BENCH_LOG_REQUESTS ?? 2000);
const BATCH = 20_000;

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

async function main(): Promise<void> {
  const testDb = await createTestDatabase('bench_log');
  if (testDb.target.kind !== 'postgres') throw new Error('bench:log needs TEST_DATABASE_URL');
  process.env.BENCH_DATABASE_URL = testDb.target.url;
  const bench = await startBenchRelay();
  const s = await openStore(testDb.target);
  const line = (i: number) =>
    `{"ctime":1800000000,"handle":"bench-${i}@bench.test","key":"ed25519:${i.toString(16).padStart(64, '0')}","prev":null,"seq":1,"sig":"${'0'.repeat(128)}","type":"eldest"}`;
  const started = performance.now();
  const nodes = new Map<string, Uint8Array>();
  let size = 0;
  let root: Uint8Array = new Uint8Array();
  while (size < LEAVES) {
    const n = Math.min(BATCH, LEAVES - size);
    const lines = Array.from({ length: n }, (_, i) => line(size + i));
    const leaves = lines.map((l) => leafHash(l));
    const { added, root: r } = appendLeaves(size, leaves, nodes);
    root = r;
    await sql`insert into sigchain_link (idx, handle, seq, key, line, leaf_hash)
      select i, 'bench-' || i, 1, 'ed25519:' || lpad(to_hex(i), 64, '0'), l, h
      from unnest(${lines.map((_, i) => size + i)}::bigint[], ${lines}::text[], ${leaves.map((h) => Buffer.from(h))}::bytea[]) as t(i, l, h)`.execute(
      s.db,
    );
    await sql`insert into log_node (level, idx, hash)
      select lv, i, h from unnest(${added.map((a) => a.level)}::smallint[], ${added.map((a) => a.idx)}::bigint[], ${added.map((a) => Buffer.from(a.hash))}::bytea[]) as t(lv, i, h)`.execute(
      s.db,
    );
    size += n;
    // Only the frontier is needed to go on.
    const keep = new Set(frontier(size).map((f) => nodeKey(f.level, f.idx)));
    for (const k of nodes.keys()) if (!keep.has(k)) nodes.delete(k);
  }
  await sql`update log_state set size = ${size}, root = ${Buffer.from(root)} where id = 1`.execute(
    s.db,
  );
  await sql`analyze`.execute(s.db);
  console.log(
    `handle-relay bench:log — PostgreSQL, ${LEAVES.toLocaleString('en')} leaves built in ${((performance.now() - started) / 1000).toFixed(1)} s`,
  );
  const server = http.createServer(bench.app).listen(0, '127.0.0.1');
  await new Promise((r) => server.once('listening', r));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const head = (await (await fetch(`${base}/v1/log/head`)).json()) as {
    size: number;
    root: string;
  };
  const time = async (
    label: string,
    url: () => { url: string; check: (body: unknown) => boolean },
  ) => {
    const times: number[] = [];
    for (let i = 0; i < REQUESTS + 100; i++) {
      const { url: u, check } = url();
      const t0 = performance.now();
      const res = await fetch(`${base}${u}`);
      const body: unknown = await res.json();
      const ms = performance.now() - t0;
      if (!res.ok || !check(body))
        throw new Error(`${label}: ${u} answered ${res.status} or did not verify`);
      if (i >= 100) times.push(ms);
    }
    times.sort((a, b) => a - b);
    const p50 = percentile(times, 50);
    const p99 = percentile(times, 99);
    console.log(
      `${label.padEnd(34)} p50 ${p50.toFixed(2)} ms  p99 ${p99.toFixed(2)} ms  (${REQUESTS} sequential, verified)  target p99 ≤ 10 ms: ${p99 <= 10 ? 'MET' : 'MISSED'}`,
    );
    return p99;
  };
  const random = (n: number) => Math.floor(Math.random() * n);
  const p99a = await time('inclusion at the head', () => {
    const m = random(head.size);
    const leaf = toHex(leafHash(line(m)));
    return {
      url: `/v1/log/inclusion?leaf=${leaf}&size=${head.size}`,
      check: (b) => {
        const p = b as { index: number; path: string[] };
        return p.index === m && verifyInclusion(m, head.size, leaf, p.path, head.root);
      },
    };
  });
  const p99b = await time('consistency from a random size', () => {
    const from = 1 + random(head.size - 1);
    return {
      url: `/v1/log/consistency?from=${from}&to=${head.size}`,
      check: (b) => (b as { path: string[] }).path.length > 0 || from === head.size,
    };
  });
  server.closeAllConnections();
  server.close();
  await s.close();
  await bench.close();
  await testDb.drop();
  if (p99a > 10 || p99b > 10) process.exitCode = 1;
}

await main();
