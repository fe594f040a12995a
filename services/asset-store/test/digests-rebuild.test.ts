import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { removeAttribute } from 'fs-xattr';
import request from 'supertest';
import { ingestFile, xattrsOf } from './asset-helpers.js';
import { createTestApp, type TestApp } from './test-app.js';

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp('digests_rebuild', { admin_token: 'admin' });
});
afterAll(async () => {
  await t.close();
});

const BASE = '/api/v1/can/0';
const sha256 = (content: string | Buffer) => createHash('sha256').update(content).digest();

async function contentSha256Of(hash: string): Promise<string | null> {
  const row = await t.index.db
    .selectFrom('asset')
    .select('content_sha256')
    .where('hash', '=', hash)
    .executeTakeFirstOrThrow();
  return row.content_sha256;
}

// Attributes removed and content changed behind the service's back, as xattrs on a disk:
// disk only. digests.test.ts has the rest, on disk and on S3.

describe('rebuilding digests', () => {
  const rebuild = (mode: string) =>
    request(t.app)
      .post(`${BASE}/admin/rebuild?mode=${mode}`)
      .set('Authorization', 'Bearer admin')
      .expect(200);

  it('rebuilds it from the attribute; a scrub recomputes it for files stored before it was kept', async () => {
    const kept = await ingestFile(t.app, 'has its digest', 'k.txt');
    const older = await ingestFile(t.app, 'stored before digests', 'o.txt');
    // What a file and row from before the migration look like.
    await removeAttribute(path.join(t.storageRoot, older.filename), 'user.can.content_sha256');
    await t.index.db
      .updateTable('asset')
      .set({ content_sha256: null })
      .where('hash', '=', older.hash)
      .execute();
    await rebuild('hard');
    expect(await contentSha256Of(kept.hash)).toBe(sha256('has its digest').toString('hex'));
    // A rebuild reads attributes, not contents: the digest waits for the scrub's read.
    expect(await contentSha256Of(older.hash)).toBeNull();
    await request(t.app)
      .post(`${BASE}/admin/verify`)
      .set('Authorization', 'Bearer admin')
      .expect(200);
    const recomputed = sha256('stored before digests').toString('hex');
    expect(await contentSha256Of(older.hash)).toBe(recomputed);
    expect((await xattrsOf(t, older.filename)).content_sha256).toBe(recomputed);
  });

  it('recomputes it for a file without attributes, unless its content is damaged', async () => {
    const bare = await ingestFile(t.app, 'bare file', 'b.txt');
    const damaged = await ingestFile(t.app, 'damaged file', 'd.txt');
    for (const { filename } of [bare, damaged]) {
      const file = path.join(t.storageRoot, filename);
      for (const key of Object.keys(await xattrsOf(t, filename))) {
        await removeAttribute(file, `user.can.${key}`);
      }
    }
    fs.writeFileSync(path.join(t.storageRoot, damaged.filename), 'changed behind our back');
    await rebuild('soft');
    expect(await contentSha256Of(bare.hash)).toBe(sha256('bare file').toString('hex'));
    expect(await contentSha256Of(damaged.hash)).toBeNull();
  });
});
