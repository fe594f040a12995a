import { listen, rowCount, storedFiles, tmpFiles } from './asset-helpers.js';
import { eventually, startUpload } from './upload-helpers.js';
import { createTestApp, type TestApp } from './test-app.js';

// Watches the part stream into a file under the storage root's .tmp/: disk only (on S3 the
// part goes to a multipart upload; upload-limits.test.ts covers the limits on both).

describe('an upload killed while its part is being written to .tmp', () => {
  let big: TestApp;
  beforeAll(async () => {
    big = await createTestApp('upload_killed');
  });
  afterAll(async () => {
    await big.close();
  });

  it('leaves no file, no row and nothing in .tmp', async () => {
    const { port, stop } = await listen(big.app);
    try {
      const req = startUpload(port, 1 << 20);
      req.write(Buffer.alloc(256 << 10, 3));
      // Past the small-upload buffer, the part is streamed to a file under .tmp/.
      await eventually(() => tmpFiles(big).length === 1);
      req.destroy();
      await eventually(() => tmpFiles(big).length === 0);
      expect(storedFiles(big)).toEqual([]);
      expect(await rowCount(big)).toBe(0);
    } finally {
      await stop();
    }
  });
});
