import { createHash, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { DatabaseHandle } from '@svc/database';
import { createLogger } from '@svc/envelope';
import { createTestDatabase } from '@svc/testing';
import { openIndex, type Database } from '../src/db/database.js';
import { openAssetStorage, type AssetStorage } from '../src/storage/fs/asset-storage.js';
import { physicalFilename } from '../src/storage/layout.js';

/** Indexed assets of random content in /tmp, for the scrub benchmarks. */
export interface ScrubFixture {
  index: DatabaseHandle<Database>;
  storage: AssetStorage;
  files: string[];
  totalBytes: number;
  close(): Promise<void>;
}

async function writeAsset(file: string, timestamp: number, bytes: number): Promise<string> {
  const prefix = Buffer.alloc(8);
  prefix.writeBigUInt64BE(BigInt(timestamp));
  const hash = createHash('sha256').update(prefix);
  const out = fs.createWriteStream(file);
  for (let written = 0; written < bytes; written += 1 << 20) {
    const chunk = randomBytes(1 << 20);
    hash.update(chunk);
    if (!out.write(chunk)) await new Promise<void>((r) => out.once('drain', () => r()));
  }
  await new Promise<void>((resolve, reject) =>
    out.end((err?: Error | null) => (err ? reject(err) : resolve())),
  );
  return hash.digest('hex');
}

/** `count` assets of `fileBytes` (a multiple of 1 MiB) each, files and rows. */
export async function createScrubFixture(
  label: string,
  count: number,
  fileBytes: number,
): Promise<ScrubFixture> {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), `${label}-`));
  const testDb = await createTestDatabase(label);
  const index = await openIndex(testDb.target);
  const storage = await openAssetStorage(root, createLogger(label, 'silent'));
  const files: string[] = [];
  const base = Date.now();
  for (let i = 0; i < count; i++) {
    const timestamp = base + i;
    const tmp = path.join(root, `incoming-${i}`);
    const hash = await writeAsset(tmp, timestamp, fileBytes);
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
        size: fileBytes,
      })
      .execute();
  }
  return {
    index,
    storage,
    files,
    totalBytes: count * fileBytes,
    close: async () => {
      await index.close();
      await testDb.drop();
      fs.rmSync(root, { recursive: true, force: true });
    },
  };
}
