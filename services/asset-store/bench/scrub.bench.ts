import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { createLogger } from '@svc/envelope';
import { FsBlobStore } from '../src/storage/fs/fs-blob-store.js';
import { Verifier } from '../src/verifier/verifier.service.js';
import { createScrubFixture } from './scrub-fixture.js';

/**
 * Part of `bench:thumbs` (and `bench:scrub` alone): a full verifier scrub over 2 GiB of
 * assets (32 files of 64 MiB, made in /tmp and deleted afterwards) against `sha256sum`
 * of the same files, alternating, both from the page cache. Target ≥ 0.8× sha256sum.
 */
const FILES = Number(process.env.BENCH_SCRUB_FILES ?? 32);
const FILE_BYTES = 64 << 20;
const ROUNDS = 2;
const run = promisify(execFile);

async function main(): Promise<void> {
  const fixture = await createScrubFixture('bench_scrub', FILES, FILE_BYTES);
  try {
    const logger = createLogger('bench-scrub', 'silent');
    const { files, totalBytes: total } = fixture;
    const verifier = new Verifier({
      db: fixture.index.db,
      blobs: new FsBlobStore(fixture.storage),
      logger,
    });

    const scrub: number[] = [];
    const baseline: number[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      let t0 = performance.now();
      await run('sha256sum', files, { maxBuffer: 1 << 20 });
      baseline.push(performance.now() - t0);
      t0 = performance.now();
      const report = await verifier.scrub();
      scrub.push(performance.now() - t0);
      if (report.checked !== FILES || report.corrupted + report.missing > 0) {
        throw new Error(`unexpected scrub report ${JSON.stringify(report)}`);
      }
    }
    const mbps = (ms: number) => total / 1e6 / (ms / 1000);
    const best = (xs: number[]) => Math.min(...xs);
    const ratio = mbps(best(scrub)) / mbps(best(baseline));
    console.log('\nbench:scrub');
    console.log(
      `scrub of ${(total / 2 ** 30).toFixed(1)} GiB in ${FILES} files (best of ${ROUNDS}): verifier ${mbps(best(scrub)).toFixed(0)} MB/s vs sha256sum ${mbps(best(baseline)).toFixed(0)} MB/s = ${ratio.toFixed(2)}× (target ≥ 0.8×) ${ratio >= 0.8 ? 'ok' : 'MISSED'}`,
    );
  } finally {
    await fixture.close();
  }
}

await main();
