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
 * commit. Each build keeps a temp folder and a fresh database (`TEST_DATABASE_URL`, else
 * PGlite), but only one build's server runs at a time: each round starts it, warms it with a
 * small ingest, measures, and stops it. The pairs alternate which build goes first (ABBA).
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
/** The warm-up ingest's size: a fresh process compiles its hot paths on it. */
const WARM_UP = 32 * MIB;

const say = (line: string) => process.stderr.write(`bench:digest: ${line}\n`);
const mbs = (ms: number) => SIZE / MIB / (ms / 1000);

interface Round {
  ingest: number;
  download: number;
  cpu: number;
}

/** One build: where its server keeps its files, its database, and how to start it. */
interface Build {
  name: string;
  start: () => Promise<Proc>;
  /** Whether its downloads carry `Repr-Digest`; undefined: not checked. */
  digests: boolean | undefined;
}

/**
 * One round on one build, its server alone on the machine: started, warmed up, one measured
 * ingest, its download and purge, stopped. Two servers side by side skewed even an A/A run
 * (bench/NOTES.md), so none runs while the other is measured.
 */
async function round(build: Build, file: string, warmUpFile: string): Promise<Round> {
  const proc = await build.start();
  try {
    const pid = proc.child.pid!;
    const warm = await ingestLarge(proc.port, warmUpFile);
    await purgeFromService(proc.port, warm.hash, ADMIN_TOKEN);
    await settle(pid);
    const cpu = cpuSeconds(pid);
    const ingested = await ingestLarge(proc.port, file);
    const cpuUsed = cpuSeconds(pid) - cpu;
    await settle(pid);
    const got = await downloadFromService(proc.port, ingested.hash);
    if (got.bytes !== SIZE) throw new Error(`download of ${got.bytes} bytes, expected ${SIZE}`);
    // Proves the two builds are the ones meant: only the subject sends the digest.
    if (build.digests !== undefined && 'repr-digest' in got.headers !== build.digests) {
      throw new Error(
        `the ${build.name} build ${build.digests ? 'sent no' : 'sent a'} Repr-Digest: ` +
          'check DIGEST_BASE_DIR',
      );
    }
    await purgeFromService(proc.port, ingested.hash, ADMIN_TOKEN);
    return { ingest: mbs(ingested.ms), download: mbs(got.ms), cpu: cpuUsed };
  } finally {
    await stopProc(proc);
  }
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
  const warmUpFile = path.join(work, 'warm-up.bin');
  const databases: TestDatabase[] = [];
  try {
    say(`preparing a ${SIZE / MIB} MiB file in ${work}`);
    makeLargeFile(file, SIZE);
    makeLargeFile(warmUpFile, WARM_UP);
    const build = async (
      name: string,
      serviceDir: string | undefined,
      digests: boolean,
    ): Promise<Build> => {
      let url: string | undefined;
      if (process.env.TEST_DATABASE_URL) {
        const db = await createTestDatabase(`asset_bench_digest_${name}`);
        databases.push(db);
        if (db.target.kind === 'postgres') url = db.target.url;
      }
      const env = { ASSET_STORE_ADMIN_TOKEN: ADMIN_TOKEN };
      return {
        name,
        start: () => startService(path.join(work, name), url, { serviceDir, env }),
        digests: BOTH_DIGEST ? undefined : digests,
      };
    };
    const base = await build('baseline', path.resolve(baseDir), false);
    const subjectDir = process.env.DIGEST_SUBJECT_DIR;
    const subject = await build('subject', subjectDir && path.resolve(subjectDir), true);
    const rounds: { base: Round; subject: Round }[] = [];
    for (let pair = 0; pair < PAIRS; pair++) {
      // ABBA: which build goes first alternates, so a position effect (what the previous
      // round left the machine doing) falls on both builds alike.
      let b: Round;
      let s: Round;
      if (pair % 2 === 0) {
        b = await round(base, file, warmUpFile);
        s = await round(subject, file, warmUpFile);
      } else {
        s = await round(subject, file, warmUpFile);
        b = await round(base, file, warmUpFile);
      }
      rounds.push({ base: b, subject: s });
      say(`pair ${pair + 1}/${PAIRS}: ${JSON.stringify(rounds.at(-1))}`);
    }
    const pick = (side: 'base' | 'subject', key: keyof Round) => rounds.map((r) => r[side][key]);
    figure('ingest', 'MB/s', pick('base', 'ingest'), pick('subject', 'ingest'), true);
    figure('ingest_cpu', 'service CPU s', pick('base', 'cpu'), pick('subject', 'cpu'), false);
    figure('download', 'MB/s', pick('base', 'download'), pick('subject', 'download'), true);
  } finally {
    fs.rmSync(work, { recursive: true, force: true });
    for (const db of databases) await db.drop();
  }
}

await main();
