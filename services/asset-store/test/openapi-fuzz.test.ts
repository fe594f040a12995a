import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { fuzzOpenApi, type FuzzReport } from '@svc/testing/openapi-fuzz';
import sharp from 'sharp';
import { ingestData, ingestFile } from './asset-helpers.js';
import { createTestApp, type TestApp } from './test-app.js';

/** Fixed, so every CI run sends the same requests; change it to explore further. */
const SEED = Number(process.env.OPENAPI_FUZZ_SEED ?? 20_261_126);
const FUZZ_MS = Number(process.env.OPENAPI_FUZZ_MS ?? 25_000);
const ADMIN_TOKEN = 'fuzz-admin-token';

let t: TestApp;
let server: http.Server;
let baseUrl: string;
beforeAll(async () => {
  // Small limits, so huge values reach the 413s quickly.
  t = await createTestApp('openapi_fuzz', {
    admin_token: ADMIN_TOKEN,
    max_upload_bytes: 65_536,
    max_json_bytes: 262_144,
  });
  server = await new Promise<http.Server>((resolve) => {
    const s = http.createServer(t.app).listen(0, '127.0.0.1', () => resolve(s));
  });
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}, 60_000);
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
  await t.close();
});

describe('requests derived from /openapi.json', () => {
  it(
    'never get a 5xx, and every answer is one the document predicts',
    async () => {
      const png = await sharp({
        create: { width: 8, height: 8, channels: 3, background: '#c33' },
      })
        .png()
        .toBuffer();
      const hashes = [
        (await ingestFile(t.app, 'hello', 'hello.txt', { tags: 'a,b' })).hash,
        (await ingestFile(t.app, png, 'red.png')).hash,
        (await ingestData(t.app, { data: { a: 1 } })).hash,
      ];
      // Purges take these, so the assets the other operations are given stay.
      const disposable: string[] = [];
      for (let i = 0; i < 20; i++)
        disposable.push((await ingestFile(t.app, `d${i}`, 'd.txt')).hash);
      const document = (await (await fetch(`${baseUrl}/openapi.json`)).json()) as Record<
        string,
        unknown
      >;
      const report: FuzzReport = await fuzzOpenApi({
        document,
        baseUrl,
        seed: SEED,
        timeLimitMs: FUZZ_MS,
        examples: { hash: [...hashes, ...hashes.map((h) => h.toUpperCase())] },
        credential: (scheme) => (scheme === 'adminToken' ? ADMIN_TOKEN : undefined),
        prepare: (req) =>
          req.operation.key === 'DELETE /api/v1/can/0/admin/asset/{hash}' &&
          hashes.includes(String(req.path.hash).toLowerCase())
            ? { ...req, path: { hash: disposable.pop() ?? req.path.hash } }
            : req,
      });
      // Each operation was reached, and the valid branch got through to a success.
      expect(report.skipped).toEqual({});
      const succeeded = Object.values(report.statuses).filter((s) =>
        Object.keys(s).some((status) => status.startsWith('2')),
      );
      expect(succeeded.length).toBeGreaterThan(Object.keys(report.statuses).length / 2);
    },
    FUZZ_MS + 60_000,
  );
});
