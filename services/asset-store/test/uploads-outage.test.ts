import { randomBytes } from 'node:crypto';
import { useDatabaseOutage } from '@svc/testing';
import { expectedHash, listen, stagedLeftovers, storedAssets } from './asset-helpers.js';
import { createTestApp, type TestApp } from './test-app.js';
import { createUpload, headUpload, patchUpload } from './tus-helpers.js';

// An outage needs a server to lose; the embedded database cannot go away under the process.
const outage = useDatabaseOutage(async (proxy) => {
  const t = await createTestApp('uploads_outage', {}, { proxy });
  const served = await listen(t.app);
  return {
    t,
    base: `http://127.0.0.1:${served.port}`,
    close: async () => {
      await served.stop();
      await t.close();
    },
  } satisfies { t: TestApp; base: string; close(): Promise<void> };
});

describe('a resumable upload whose completion meets a database outage', () => {
  outage.describeOnServer('with the index unreachable at the last byte', () => {
    it('answers 503, keeps every byte, and becomes the asset on a PATCH of no bytes once the index is back', async () => {
      const { t, base } = outage.app();
      const content = randomBytes(100_000);
      const { url } = await createUpload(base, content.length);
      expect((await patchUpload(url, 0, content.subarray(0, 60_000))).status).toBe(204);
      // An ingest first, so the timestamps are seeded and the outage meets the index write,
      // after the file was put in place.
      const earlier = await fetch(`${base}/api/v1/can/0/ingest/data`, {
        method: 'POST',
        body: JSON.stringify({ data: 1 }),
      });
      expect(earlier.status).toBe(200);
      await outage.proxy().cut();
      let failed: Response;
      try {
        failed = await patchUpload(url, 60_000, content.subarray(60_000));
      } finally {
        await outage.proxy().restore();
      }
      expect([failed.status, await failed.json()]).toEqual([
        503,
        { status: 'error', error: 'the database is unavailable: try again shortly' },
      ]);
      const head = await headUpload(url);
      expect([
        head.status,
        head.headers.get('upload-offset'),
        head.headers.get('asset-hash'),
      ]).toEqual([200, String(content.length), null]);
      // The placement was undone: no staged link, no file in the root but the earlier one.
      expect(await stagedLeftovers(t)).toEqual([]);
      expect(await storedAssets(t)).toHaveLength(1);
      const retried = await patchUpload(url, content.length, Buffer.alloc(0));
      expect(retried.status).toBe(204);
      const timestamp = Number(retried.headers.get('asset-timestamp'));
      const hash = retried.headers.get('asset-hash')!;
      expect(hash).toBe(expectedHash(content, timestamp));
      const download = await fetch(`${base}/api/v1/can/0/asset/${hash}`);
      expect(Buffer.from(await download.arrayBuffer()).equals(content)).toBe(true);
    }, 60_000);
  });
});
