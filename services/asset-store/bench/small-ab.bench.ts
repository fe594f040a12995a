import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createTestDatabase, type TestDatabase } from '@svc/testing';
import {
  cpuSeconds,
  envNumber,
  median,
  multipartBody,
  printFigure,
  round3,
  settle,
  smallFiles,
  startService,
  stopProc,
} from './bench-kit.js';

/**
 * `pnpm --filter asset-store bench:small-ab`: 4 KiB ingests against two builds of the
 * service, to measure what one change costs small ingests. `AB_BASE_DIR` names the other
 * build's `services/asset-store` folder (`tsc --build` done), `AB_SUBJECT_DIR` optionally
 * another in place of this one. As `bench:digest` does, only one build's server runs at a
 * time: each round starts it on its own folder and database, warms it up
 * (`AB_WARM_UP` requests: a fresh process compiles its hot paths), measures `AB_COUNT`
 * ingests over 8 connections, and stops it; the pairs alternate which build goes first.
 */
const PAIRS = envNumber('AB_PAIRS', 5);
const COUNT = envNumber('AB_COUNT', 2000);
const WARM_UP = envNumber('AB_WARM_UP', 6000);
const CONNECTIONS = 8;
const INGEST = '/api/v1/can/0/ingest';

const say = (line: string) => process.stderr.write(`bench:small-ab: ${line}\n`);

interface Round {
  rps: number;
  p99: number;
  cpuMsPerIngest: number;
}

async function main(): Promise<void> {
  const baseDir = process.env.AB_BASE_DIR;
  if (!baseDir || !fs.existsSync(path.join(baseDir, 'dist/src/start.cjs'))) {
    say('AB_BASE_DIR must name another built services/asset-store (git worktree, tsc --build)');
    process.exitCode = 1;
    return;
  }
  const work = fs.mkdtempSync(path.join(os.tmpdir(), 'asset-bench-small-ab-'));
  const databases: TestDatabase[] = [];
  const { body, type } = multipartBody(Buffer.alloc(4096, 7));
  try {
    const build = async (name: string, serviceDir: string | undefined) => {
      let url: string | undefined;
      if (process.env.TEST_DATABASE_URL) {
        const db = await createTestDatabase(`asset_bench_small_ab_${name}`);
        databases.push(db);
        if (db.target.kind === 'postgres') url = db.target.url;
      }
      return async (): Promise<Round> => {
        const proc = await startService(path.join(work, name), url, { serviceDir });
        try {
          await smallFiles(proc.port, INGEST, body, type, WARM_UP, CONNECTIONS);
          await settle(proc.child.pid!);
          const cpu = cpuSeconds(proc.child.pid!);
          const run = await smallFiles(proc.port, INGEST, body, type, COUNT, CONNECTIONS);
          if (run.errors > 0) throw new Error(`${name}: ${run.errors} ingests failed`);
          const cpuMsPerIngest = ((cpuSeconds(proc.child.pid!) - cpu) * 1000) / COUNT;
          return { rps: run.rps, p99: run.p99, cpuMsPerIngest };
        } finally {
          await stopProc(proc);
        }
      };
    };
    const base = await build('baseline', path.resolve(baseDir));
    const subjectDir = process.env.AB_SUBJECT_DIR;
    const subject = await build('subject', subjectDir && path.resolve(subjectDir));
    const rounds: { base: Round; subject: Round }[] = [];
    for (let pair = 0; pair < PAIRS; pair++) {
      let b: Round;
      let s: Round;
      if (pair % 2 === 0) {
        b = await base();
        s = await subject();
      } else {
        s = await subject();
        b = await base();
      }
      rounds.push({ base: b, subject: s });
      say(`pair ${pair + 1}/${PAIRS}: ${JSON.stringify(rounds.at(-1))}`);
    }
    const ratios = rounds.map((r) => r.subject.rps / r.base.rps);
    printFigure({
      bench: 'small-ab',
      figure: '4 KiB ingest req/s, subject ÷ baseline',
      ratio: round3(median(ratios)),
      pairs: ratios.map(round3),
      subject_rps: round3(median(rounds.map((r) => r.subject.rps))),
      baseline_rps: round3(median(rounds.map((r) => r.base.rps))),
      subject_p99_ms: median(rounds.map((r) => r.subject.p99)),
      baseline_p99_ms: median(rounds.map((r) => r.base.p99)),
      subject_cpu_ms_per_ingest: round3(median(rounds.map((r) => r.subject.cpuMsPerIngest))),
      baseline_cpu_ms_per_ingest: round3(median(rounds.map((r) => r.base.cpuMsPerIngest))),
      load1: round3(os.loadavg()[0]!),
    });
  } finally {
    fs.rmSync(work, { recursive: true, force: true });
    for (const db of databases) await db.drop();
  }
}

await main();
