import fs from 'node:fs';
import path from 'node:path';
import request from 'supertest';
import { ingestFile, xattrsOf } from './asset-helpers.js';
import { useTestApp } from './test-app.js';

// What PATCH, trash and restore fsync on disk: disk only (on S3 a write is durable once
// answered); metadata.test.ts has the rest, on disk and on S3.

const t = useTestApp('metadata_fsync');

const asset = (hash: string) => `/api/v1/can/0/asset/${hash}`;

/** What `action` flushed to the disk with fs.fsync (files and folders, by path). */
async function flushedDuring(action: () => Promise<unknown>): Promise<string[]> {
  const flushed: string[] = [];
  const fsync = fs.fsync;
  fs.fsync = ((fd: number, callback: (err: NodeJS.ErrnoException | null) => void) => {
    flushed.push(fs.readlinkSync(`/proc/self/fd/${fd}`));
    fsync(fd, callback);
  }) as typeof fs.fsync;
  try {
    await action();
  } finally {
    fs.fsync = fsync;
  }
  return flushed;
}

describe('PATCH on disk', () => {
  // Skipped off Linux: the flushed files are named through /proc.
  const onLinux = process.platform === 'linux' ? it : it.skip;

  onLinux(
    "flushes the rewritten attributes, and a sidecar's removal, before answering",
    async () => {
      const { hash, filename } = await ingestFile(t.app, 'x', 'a.txt');
      const root = fs.realpathSync(t.storageRoot);
      const file = path.join(root, filename);
      const patch = (body: object) => request(t.app).patch(asset(hash)).send(body).expect(200);
      expect(await flushedDuring(() => patch({ tags: ['kept'] }))).toEqual([file]);
      expect(await flushedDuring(() => request(t.app).delete(asset(hash)).expect(200))).toEqual([
        file,
      ]);
      expect(
        await flushedDuring(() =>
          request(t.app)
            .post(`${asset(hash)}/restore`)
            .expect(200),
        ),
      ).toEqual([file]);
      await patch({ description: 'L'.repeat(16_384) });
      const meta = path.join(root, '.meta');
      // Back in the attributes: they are flushed, then the sidecar's folder once it is gone.
      expect(await flushedDuring(() => patch({ description: 'short' }))).toEqual([file, meta]);
      expect((await xattrsOf(t, filename)).tags).toBe('["kept"]');
    },
  );
});
