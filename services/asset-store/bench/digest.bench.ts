import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createTestDatabase, type TestDatabase } from '@svc/testing';
import {
  cpuSeconds,
  envNumber,
  median,
  printFigure,
  round3,
  settle,
  startService,
  stopProc,
  type Proc,
} from './bench-kit.js';
import {
  downloadFromService,
  ingestLarge,
  makeLargeFile,
  purgeFromService,
} from './bench-large.js';

/**
 * `pnpm --filter asset-store bench:digest` (issue 24: content digests cost ≤ 5 % of 1 GiB
 * ingest throughput). The service has no switch for its digest work, and a bench must not
 * add a product setting, so the baseline is another build named by `DIGEST_BASE_DIR` (its
 * `services/asset-store` folder, `tsc --build` done): this code with `bench/no-digest.patch`
 * applied (the content SHA-256 left out of staging, nothing else changed), or any older
 * commit. Both builds run side by side, each on a temp folder and a fresh database
 * (`TEST_DATABASE_URL`, else PGlite); the pairs alternate which build goes first (ABBA).
 * Sizes: `DIGEST_BENCH_MIB` (1024), `DIGEST_BENCH_PAIRS` (5). `DIGEST_SUBJECT_DIR` puts
 * another build in place of this one; `DIGEST_BENCH_BOTH=1` drops the check that only the
 * subject sends `Repr-Digest` (two builds with digests, or one build against itself to see
 * the bench's own spread). One JSON line per figure on stdout; progress on stderr.
 */
const MIB = 1 << 20;
const SIZE = Math.round(envNumber('DIGEST_BENCH_MIB', 1024) * MIB);
const PAIRS = envNumber('DIGEST_BENCH_PAIRS', 5);
const ADMIN_TOKEN = 'bench-admin-token';
const TARGET = 0.95;
/** `DIGEST_BENCH_BOTH=1`: an A/B of two builds that both send digests (another change's cost). */
const BOTH_DIGEST = process.env.DIGEST_BENCH_BOTH === '1';

const say = (line: string) => process.stderr.write(`bench:digest: ${line}\n`);
const mbs = (ms: number) => SIZE / MIB / (ms / 1000);

interface Round {
  ingest: number;
  download: number;
  cpu: number;
}

/** Waits until both servers are idle: one's work after answering (the verifier) would slow the other. */
async function settleAll(procs: Proc[]): Promise<void> {
  for (const proc of procs) await settle(proc.child.pid!);
}

/** One ingest, its download and its purge, on one server. */
async function round(
  proc: Proc,
  all: Proc[],
  file: string,
  expectDigest: boolean | undefined,
): Promise<Round> {
  const pid = proc.child.pid!;
  await settleAll(all);
  const cpu = cpuSeconds(pid);
  const ingested = await ingestLarge(proc.port, file);
  const cpuUsed = cpuSeconds(pid) - cpu;
  await settleAll(all);
  const got = await downloadFromService(proc.port, ingested.hash);
  if (got.bytes !== SIZE) throw new Error(`download of ${got.bytes} bytes, expected ${SIZE}`);
  // Proves the two builds are the ones meant: only the subject sends the digest.
  if (expectDigest !== undefined && 'repr-digest' in got.headers !== expectDigest) {
    throw new Error(
      `the ${expectDigest ? 'subject' : 'baseline'} build ${expectDigest ? 'sent no' : 'sent a'} ` +
        'Repr-Digest: check DIGEST_BASE_DIR',
    );
  }
  await purgeFromService(proc.port, ingested.hash, ADMIN_TOKEN);
  return { ingest: mbs(ingested.ms), download: mbs(got.ms), cpu: cpuUsed };
}

function figure(
  name: string,
  unit: string,
  base: number[],
  subject: number[],
  higherIsBetter: boolean,
): void {
  // For throughput, subject ÷ baseline; for CPU time, baseline ÷ subject: both under 1 when digests cost.
  const ratios = subject.map((s, i) => (higherIsBetter ? s / base[i]! : base[i]! / s));
  const ratio = median(ratios);
  printFigure({
    bench: 'digest',
    figure: name,
    unit,
    subject: round3(median(subject)),
    baseline: round3(median(base)),
    ratio: round3(ratio),
    cost: round3(1 - ratio),
    target: `ratio >= ${TARGET} (cost <= ${round3(1 - TARGET)})`,
    ok: ratio >= TARGET,
    pairs: ratios.map((r, i) => ({
      subject: round3(subject[i]!),
      baseline: round3(base[i]!),
      ratio: round3(r),
    })),
    size_mib: SIZE / MIB,
    cores: os.cpus().length,
    load1: round3(os.loadavg()[0]!),
  });
}

async function main(): Promise<void> {
  const baseDir = process.env.DIGEST_BASE_DIR;
  if (!baseDir || !fs.existsSync(path.join(baseDir, 'dist/src/start.cjs'))) {
    say('DIGEST_BASE_DIR must name a built services/asset-store without digests, for example:');
    say(
      '  git worktree add --detach ../no-digest HEAD && cd ../no-digest && pnpm install --frozen-lockfile',
    );
    say('  git apply services/asset-store/bench/no-digest.patch');
    say(
      '  (cd services/asset-store && npx tsc --build); then DIGEST_BASE_DIR=$PWD/services/asset-store',
    );
    process.exitCode = 1;
    return;
  }
  const work = fs.mkdtempSync(path.join(os.tmpdir(), 'asset-bench-digest-'));
  const file = path.join(work, 'large.bin');
  const databases: TestDatabase[] = [];
  const procs: Proc[] = [];
  try {
    say(`preparing a ${SIZE / MIB} MiB file in ${work}`);
    makeLargeFile(file, SIZE);
    const start = async (name: string, serviceDir?: string): Promise<Proc> => {
      let url: string | undefined;
      if (process.env.TEST_DATABASE_URL) {
        const db = await createTestDatabase(`asset_bench_digest_${name}`);
        databases.push(db);
        if (db.target.kind === 'postgres') url = db.target.url;
      }
      const env = { ASSET_STORE_ADMIN_TOKEN: ADMIN_TOKEN };
      const proc = await startService(path.join(work, name), url, { serviceDir, env });
      procs.push(proc);
      return proc;
    };
    const base = await start('base', path.resolve(baseDir));
    const subjectDir = process.env.DIGEST_SUBJECT_DIR;
    const subject = await start('subject', subjectDir && path.resolve(subjectDir));
    const rounds: { base: Round; subject: Round }[] = [];
    for (let pair = 0; pair < PAIRS; pair++) {
      // ABBA: which build goes first alternates, so a position effect (what the previous
      // round left the machine doing) falls on both builds alike.
      const baseRound = () => round(base, procs, file, BOTH_DIGEST ? undefined : false);
      const subjectRound = () => round(subject, procs, file, BOTH_DIGEST ? undefined : true);
      let b: Round;
      let s: Round;
      if (pair % 2 === 0) {
        b = await baseRound();
        s = await subjectRound();
      } else {
        s = await subjectRound();
        b = await baseRound();
      }
      rounds.push({ base: b, subject: s });
      say(`pair ${pair + 1}/${PAIRS}: ${JSON.stringify(rounds.at(-1))}`);
    }
    const pick = (side: 'base' | 'subject', key: keyof Round) => rounds.map((r) => r[side][key]);
    figure('ingest', 'MB/s', pick('base', 'ingest'), pick('subject', 'ingest'), true);
    figure('ingest_cpu', 'service CPU s', pick('base', 'cpu'), pick('subject', 'cpu'), false);
    figure('download', 'MB/s', pick('base', 'download'), pick('subject', 'download'), true);
  } finally {
    for (const proc of procs) await stopProc(proc);
    fs.rmSync(work, { recursive: true, force: true });
    for (const db of databases) await db.drop();
  }
}

await main();
