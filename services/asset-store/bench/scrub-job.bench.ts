import { randomUUID } from 'node:crypto';
import { backfillMedia, countUnprobed } from '../src/assets/media-backfill.js';
import { ProcessLock } from '@svc/database';
import { createLogger } from '@svc/envelope';
import { Rebuilder } from '../src/admin/rebuild.service.js';
import { JobService } from '../src/jobs/job.service.js';
import { FsBlobStore } from '../src/storage/fs/fs-blob-store.js';
import { Verifier } from '../src/verifier/verifier.service.js';
import { createScrubFixture } from './scrub-fixture.js';

/**
 * `bench:scrub-job`: a full scrub run as a job (`POST /admin/jobs {"kind":"verify"}`, with
 * its live progress) against the synchronous scrub (`POST /admin/verify`), alternating, over
 * the same files from the page cache. Target: the job within 5 % of the synchronous scrub.
 * Also samples the job while it runs, to show how often its progress moves.
 */
const FILES = Number(process.env.BENCH_SCRUB_FILES ?? 16);
const FILE_BYTES = 64 << 20;
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 6);

async function main(): Promise<void> {
  const fixture = await createScrubFixture('bench_scrub_job', FILES, FILE_BYTES);
  try {
    const logger = createLogger('bench-scrub-job', 'silent');
    const { db } = fixture.index;
    const blobs = new FsBlobStore(fixture.storage);
    const verifier = new Verifier({ db, blobs, logger });
    const rebuilder = new Rebuilder({
      db,
      blobs,
      logger,
      errorThreshold: 10,
      lock: new ProcessLock(),
    });
    // No presence held: a bench instance's jobs count as orphaned to any other start.
    const jobs = new JobService({
      db,
      verifier,
      rebuilder,
      blobs,
      backfiller: {
        count: () => countUnprobed(db),
        backfill: (run) => backfillMedia({ db, blobs, logger }, run),
      },
      logger,
      instanceId: randomUUID(),
    });

    /** Wall and CPU milliseconds (all the process's threads) of each run. */
    const sync = { wall: [] as number[], cpu: [] as number[] };
    const job = { wall: [] as number[], cpu: [] as number[] };
    let longestStillMs = 0;
    const timed = async (into: typeof sync, work: () => Promise<void>) => {
      const cpu0 = process.cpuUsage();
      const t0 = performance.now();
      await work();
      into.wall.push(performance.now() - t0);
      const cpu = process.cpuUsage(cpu0);
      into.cpu.push((cpu.user + cpu.system) / 1000);
    };
    const runSync = () =>
      timed(sync, async () => {
        await verifier.scrub();
      });
    const runJob = () =>
      timed(job, async () => {
        const { id } = await jobs.start({ kind: 'verify' });
        let last = { at: performance.now(), bytes: -1 };
        for (;;) {
          const seen = await jobs.get(id);
          const now = performance.now();
          if (seen.bytes_done !== last.bytes) last = { at: now, bytes: seen.bytes_done };
          else longestStillMs = Math.max(longestStillMs, now - last.at);
          if (seen.status !== 'running') {
            if (seen.status !== 'done') throw new Error(`job ended ${seen.status}`);
            return;
          }
          await new Promise((r) => setTimeout(r, 20));
        }
      });
    // One scrub first: both kinds then read from the page cache.
    await verifier.scrub();
    for (let round = 0; round < ROUNDS; round++) {
      // The order alternates, so neither kind always runs right after the other.
      if (round % 2 === 0) await runSync();
      await runJob();
      if (round % 2 === 1) await runSync();
    }
    const mbps = (ms: number) => fixture.totalBytes / 1e6 / (ms / 1000);
    const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
    const wall = median(job.wall) / median(sync.wall);
    const cpu = median(job.cpu) / median(sync.cpu);
    const list = (xs: number[]) => xs.map(Math.round).join(', ');
    console.log('\nbench:scrub-job');
    console.log(
      `scrub of ${(fixture.totalBytes / 2 ** 30).toFixed(1)} GiB in ${FILES} files (median of ${ROUNDS}): ` +
        `synchronous ${mbps(median(sync.wall)).toFixed(0)} MB/s, as a job ${mbps(median(job.wall)).toFixed(0)} MB/s; ` +
        `job wall time ${wall.toFixed(3)}×, CPU time ${cpu.toFixed(3)}× (target ≤ 1.05×) ${wall <= 1.05 ? 'ok' : 'MISSED'}`,
    );
    console.log(`wall ms: sync ${list(sync.wall)}; job ${list(job.wall)}`);
    console.log(`CPU ms: sync ${list(sync.cpu)}; job ${list(job.cpu)}`);
    console.log(
      `longest stretch without progress seen while sampling every ~20 ms: ${Math.round(longestStillMs)} ms`,
    );
  } finally {
    await fixture.close();
  }
}

await main();
