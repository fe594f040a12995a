import { createHash } from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { fuzzOpenApi, type FuzzRequest } from '@svc/testing/openapi-fuzz';
import sharp from 'sharp';
import { ingestData, ingestFile } from './asset-helpers.js';
import { buildConsole } from './console-harness.js';
import { createTestApp, type TestApp } from './test-app.js';

/** Fixed, so every CI run sends the same requests; set it to explore further. */
const SEED = Number(process.env.OPENAPI_FUZZ_SEED ?? 20_261_126);
const FUZZ_MS = Number(process.env.OPENAPI_FUZZ_MS ?? 20_000);
const ADMIN_TOKEN = 'fuzz-admin-token';
const PURGE = 'DELETE /api/v1/can/0/admin/asset/{hash}';
const INGEST = 'POST /api/v1/can/0/ingest';

let t: TestApp;
let server: http.Server;
let baseUrl: string;
let consoleDir: string;
/** Assets every operation is given, and others only purges take (so these stay). */
const hashes: string[] = [];
const disposable: string[] = [];
beforeAll(async () => {
  // A built console, as `pnpm build` leaves it: without one `/console/` answers its 503.
  consoleDir = buildConsole('fuzz');
  // Small limits, so huge values reach the 413s quickly.
  t = await createTestApp(
    'openapi_fuzz',
    { admin_token: ADMIN_TOKEN, max_upload_bytes: 65_536, max_json_bytes: 262_144 },
    { consoleDir },
  );
  server = await new Promise<http.Server>((resolve) => {
    const s = http.createServer(t.app).listen(0, '127.0.0.1', () => resolve(s));
  });
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const png = await sharp({ create: { width: 8, height: 8, channels: 3, background: '#c33' } })
    .png()
    .toBuffer();
  hashes.push(
    (await ingestFile(t.app, 'hello', 'hello.txt', { tags: 'a,b' })).hash,
    (await ingestFile(t.app, png, 'red.png')).hash,
    (await ingestData(t.app, { data: { a: 1 } })).hash,
  );
  for (let i = 0; i < 20; i++) disposable.push((await ingestFile(t.app, `d${i}`, 'd.txt')).hash);
}, 60_000);
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
  await t.close();
  fs.rmSync(consoleDir, { recursive: true, force: true });
});

/** What a valid request needs beyond its schema: purges take disposable assets, and a
 * `sha256` field or an `Upload-Checksum` is the content's own (another is refused, as it
 * should be). */
function prepare(req: FuzzRequest): FuzzRequest {
  if (req.operation.key.includes('/uploads')) {
    const headers = { ...req.headers };
    if (headers['Upload-Checksum'] !== undefined) {
      // Like the form's sha256: a valid checksum is the body's own (another answers 460).
      const body = req.body && 'raw' in req.body ? req.body.raw : req.body?.value;
      const bytes = Buffer.isBuffer(body) ? body : Buffer.alloc(0);
      headers['Upload-Checksum'] = `sha256 ${createHash('sha256').update(bytes).digest('base64')}`;
    }
    // Keys are named once and their values are the form fields' text (UTF-8), which the
    // pattern cannot say: a valid request sends a set that is.
    if (headers['Upload-Metadata'] !== undefined) headers['Upload-Metadata'] = UPLOAD_METADATA;
    return { ...req, headers };
  }
  if (req.operation.key === PURGE) {
    const given = String(req.path.hash).toLowerCase();
    return hashes.includes(given) ? { ...req, path: { hash: disposable.pop() ?? given } } : req;
  }
  const form = req.body && 'value' in req.body ? (req.body.value as Form) : undefined;
  if (req.operation.key !== INGEST || !form?.sha256) return req;
  const sha256 = createHash('sha256').update(form.file).digest('hex');
  return { ...req, body: { type: req.body!.type, value: { ...form, sha256 } } };
}

const UPLOAD_METADATA = `filename ${Buffer.from('fuzz.bin').toString('base64')},tags ${Buffer.from('a,b').toString('base64')}`;

/** A generated `POST /ingest` form. */
type Form = { file: Buffer; sha256?: string };

describe('requests derived from /openapi.json', () => {
  it(
    'never get a 5xx, and every answer is one the document predicts',
    async () => {
      const res = await fetch(`${baseUrl}/openapi.json`);
      const report = await fuzzOpenApi({
        document: (await res.json()) as Record<string, unknown>,
        baseUrl,
        seed: SEED,
        timeLimitMs: FUZZ_MS,
        examples: { hash: [...hashes, ...hashes.map((h) => h.toUpperCase())] },
        credential: (scheme) => (scheme === 'adminToken' ? ADMIN_TOKEN : undefined),
        prepare,
        mayRefuseValid: {
          'POST /api/v1/can/0/admin/webhooks':
            'a URL must parse as absolute http(s) and its host must not be private (SSRF), which no schema can say',
        },
      });
      // Nothing skipped, and most operations' valid requests got through to a success.
      expect(report.skipped).toEqual({});
      const succeeded = Object.values(report.statuses).filter((s) =>
        Object.keys(s).some((status) => status.startsWith('2')),
      );
      expect(succeeded.length).toBeGreaterThan(Object.keys(report.statuses).length / 2);
    },
    FUZZ_MS + 60_000,
  );
});
