import { execFile } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { createTestDatabase } from '@svc/testing';
import { createLogger } from '@svc/envelope';
import { openIndex } from '../src/db/database.js';
import { openAssetStorage } from '../src/storage/asset-storage.js';
import { physicalFilename } from '../src/storage/layout.js';
import { Verifier } from '../src/verifier/verifier.service.js';

/**
 * Part of `bench:thumbs` (and `bench:scrub` alone): a full verifier scrub over 2 GiB of
 * assets (32 files of 64 MiB, made in /tmp and deleted afterwards) against `sha256sum`
 * of the same files, alternating, both from the page cache. Target ≥ 0.8× sha256sum.
 */
const FILES = Number(process.env.BENCH_SCRUB_FILES ?? 32);
const FILE_BYTES = 64 << 20;
const ROUNDS = 2;
const run = promisify(execFile);

async function writeAsset(file: string, timestamp: number): Promise<string> {
  const prefix = Buffer.alloc(8);
  prefix.writeBigUInt64BE(BigInt(timestamp));
  const hash = createHash('sha256').update(prefix);
  const out = fs.createWriteStream(file);
  for (let written = 0; written < FILE_BYTES; written += 1 << 20) {
    const chunk = randomBytes(1 << 20);
    hash.update(chunk);
    if (!out.write(chunk)) await new Promise<void>((r) => out.once('drain', () => r()));
  }
  await new Promise<void>((resolve, reject) =>
    out.end((err?: Error | null) => (err ? reject(err) : resolve())),
  );
  return hash.digest('hex');
}

async function main(): Promise<void> {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-scrub-'));
  const testDb = await createTestDatabase('bench_scrub');
  const index = await openIndex(testDb.target);
  try {
    const logger = createLogger('bench-scrub', 'silent');
    const storage = await openAssetStorage(root, logger);
    const files: string[] = [];
    const base = Date.now();
    for (let i = 0; i < FILES; i++) {
      const timestamp = base + i;
      const tmp = path.join(root, `incoming-${i}`);
      const hash = await writeAsset(tmp, timestamp);
      const name = physicalFilename({ timestamp, hash, tags: [], ext: 'bin' });
      fs.renameSync(tmp, path.join(root, name));
      files.push(path.join(root, name));
      await index.db
        .insertInto('asset')
        .values({
          hash,
          timestamp,
          mime_type: 'application/octet-stream',
          tags: [],
          path: name,
          size: FILE_BYTES,
        })
        .execute();
    }
    const total = FILES * FILE_BYTES;
    const verifier = new Verifier({
      db: index.db,
      layout: storage.layout,
      attributes: storage.attributes,
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
    await index.close();
    await testDb.drop();
    fs.rmSync(root, { recursive: true, force: true });
  }
}

await main();
