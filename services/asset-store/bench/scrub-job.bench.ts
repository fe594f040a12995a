import { createLogger } from '@svc/envelope';
import { Rebuilder } from '../src/admin/rebuild.service.js';
import { JobService } from '../src/jobs/job.service.js';
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
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);

async function main(): Promise<void> {
  const fixture = await createScrubFixture('bench_scrub_job', FILES, FILE_BYTES);
  try {
    const logger = createLogger('bench-scrub-job', 'silent');
    const { db } = fixture.index;
    const { layout, attributes } = fixture.storage;
    const verifier = new Verifier({ db, layout, attributes, logger });
    const rebuilder = new Rebuilder({ db, layout, attributes, logger, errorThreshold: 10 });
    const jobs = new JobService({ db, verifier, rebuilder, layout, logger });

    const sync: number[] = [];
    const job: number[] = [];
    let longestStillMs = 0;
    for (let round = 0; round < ROUNDS; round++) {
      let t0 = performance.now();
      await verifier.scrub();
      sync.push(performance.now() - t0);

      t0 = performance.now();
      const { id } = await jobs.start({ kind: 'verify' });
      let last = { at: t0, bytes: -1 };
      for (;;) {
        const seen = await jobs.get(id);
        const now = performance.now();
        if (seen.bytes_done !== last.bytes) last = { at: now, bytes: seen.bytes_done };
        else longestStillMs = Math.max(longestStillMs, now - last.at);
        if (seen.status !== 'running') {
          if (seen.status !== 'done') throw new Error(`job ended ${seen.status}`);
          break;
        }
        await new Promise((r) => setTimeout(r, 5));
      }
      job.push(performance.now() - t0);
    }
    const mbps = (ms: number) => fixture.totalBytes / 1e6 / (ms / 1000);
    const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
    const ratio = median(job) / median(sync);
    console.log('\nbench:scrub-job');
    console.log(
      `scrub of ${(fixture.totalBytes / 2 ** 30).toFixed(1)} GiB in ${FILES} files (median of ${ROUNDS}): ` +
        `synchronous ${mbps(median(sync)).toFixed(0)} MB/s, as a job ${mbps(median(job)).toFixed(0)} MB/s; ` +
        `job time ${ratio.toFixed(3)}× (target ≤ 1.05×) ${ratio <= 1.05 ? 'ok' : 'MISSED'}`,
    );
    console.log(
      `runs (ms): sync ${sync.map(Math.round).join(', ')}; job ${job.map(Math.round).join(', ')}`,
    );
    console.log(
      `longest stretch without progress seen while sampling every ~5 ms: ${Math.round(longestStillMs)} ms`,
    );
  } finally {
    await fixture.close();
  }
}

await main();
