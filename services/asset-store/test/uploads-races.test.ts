import { randomBytes } from 'node:crypto';
import http from 'node:http';
import { listen } from './asset-helpers.js';
import { createTestApp, type TestApp } from './test-app.js';
import { createUpload, headUpload, patchUpload, tusUpload } from './tus-helpers.js';

let t: TestApp;
let base: string;
let stop: () => Promise<void>;
beforeAll(async () => {
  t = await createTestApp('uploads_races');
  const served = await listen(t.app);
  base = `http://127.0.0.1:${served.port}`;
  stop = served.stop;
});
afterAll(async () => {
  await stop();
  await t.close();
});

const API = '/api/v1/can/0';

/** What a raw request got: its status, the headers named, its body; or how it failed. */
interface Outcome {
  status: number;
  headers: Record<string, string | undefined>;
  body: unknown;
}

/**
 * A PATCH whose body is sent in `parts`, `pauseMs` apart, over a connection of its own, as a
 * slow client's would be. Rejects when the connection fails before the answer is whole.
 */
function slowPatch(url: string, offset: number, parts: Buffer[], pauseMs: number) {
  const length = parts.reduce((sum, part) => sum + part.length, 0);
  return new Promise<Outcome>((resolve, reject) => {
    const req = http.request(url, {
      method: 'PATCH',
      agent: false,
      headers: {
        'Tus-Resumable': '1.0.0',
        'Upload-Offset': String(offset),
        'Content-Type': 'application/offset+octet-stream',
        'Content-Length': String(length),
      },
    });
    req.on('error', reject);
    req.on('response', (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('error', reject);
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString();
        resolve({
          status: res.statusCode ?? 0,
          headers: {
            'upload-offset': res.headers['upload-offset'] as string | undefined,
            'asset-hash': res.headers['asset-hash'] as string | undefined,
          },
          body: text === '' ? '' : (JSON.parse(text) as unknown),
        });
      });
    });
    void (async () => {
      for (const part of parts) {
        if (req.destroyed) return;
        req.write(part);
        await new Promise((resolve) => setTimeout(resolve, pauseMs));
      }
      req.end();
    })();
  });
}

/** The assets the index holds. */
async function assetCount(): Promise<number> {
  const rows = await t.index.db.selectFrom('asset').select('hash').execute();
  return rows.length;
}

describe('tus edges: a retried last PATCH, and PATCHes racing at one offset', () => {
  it('answers a retried last PATCH (offset = length, no body) like HEAD: 204 with the offset and the asset', async () => {
    const content = randomBytes(300_000);
    const { url } = await createUpload(base, content.length);
    const first = await patchUpload(url, 0, content);
    expect(first.status).toBe(204);
    const asset = {
      offset: first.headers.get('upload-offset'),
      hash: first.headers.get('asset-hash'),
      timestamp: first.headers.get('asset-timestamp'),
    };
    expect(asset).toEqual({
      offset: String(content.length),
      hash: expect.stringMatching(/^[0-9a-f]{64}$/) as string,
      timestamp: expect.stringMatching(/^\d+$/) as string,
    });
    const before = await assetCount();

    // The answer to the last PATCH was lost: the client sends it again, with nothing left.
    const again = await patchUpload(url, content.length, Buffer.alloc(0));
    expect({
      status: again.status,
      offset: again.headers.get('upload-offset'),
      hash: again.headers.get('asset-hash'),
      timestamp: again.headers.get('asset-timestamp'),
      body: await again.text(),
    }).toEqual({ status: 204, ...asset, body: '' });
    const head = await headUpload(url);
    expect([
      head.status,
      head.headers.get('asset-hash'),
      head.headers.get('upload-offset'),
    ]).toEqual([200, asset.hash, asset.offset]);
    // Nothing was ingested twice, and bytes past the end are still refused.
    expect(await assetCount()).toBe(before);
    const past = await patchUpload(url, content.length, Buffer.alloc(1));
    expect(past.status).toBe(413);
  });

  it('answers the second of two PATCHes at one offset 409 or 423, and lets the first finish whole', async () => {
    const content = randomBytes(4 << 20);
    const { url } = await createUpload(base, content.length);
    const parts = Array.from({ length: 8 }, (_, i) => content.subarray(i << 19, (i + 1) << 19));
    // The first sends its body slowly (over 4 s: longer than tus's own 3 s drain before it
    // cuts off a lock's holder); the second comes while the first still holds the upload.
    const first = slowPatch(url, 0, parts, 550);
    await new Promise((resolve) => setTimeout(resolve, 300));
    const second = await slowPatch(url, 0, [content], 0);
    expect([409, 423]).toContain(second.status);
    expect(second.body).toEqual({
      status: 'error',
      error:
        second.status === 423
          ? 'the upload is busy: another request is writing it; try again shortly'
          : 'Upload-Offset conflict',
    });
    const won = await first;
    expect({ status: won.status, offset: won.headers['upload-offset'] }).toEqual({
      status: 204,
      offset: String(content.length),
    });
    const got = await fetch(`${base}${API}/asset/${won.headers['asset-hash']}`);
    expect(Buffer.from(await got.arrayBuffer()).equals(content)).toBe(true);
  });

  it('lets two tus clients resume one upload at once: both succeed, with one asset', async () => {
    const content = randomBytes(3 << 20);
    const { url } = await createUpload(base, content.length);
    const before = await assetCount();
    const options = { uploadUrl: url, chunkSize: 1 << 20, retryDelays: [50, 100, 200, 400, 800] };
    const [a, b] = await Promise.all([
      tusUpload(base, content, options),
      tusUpload(base, content, options),
    ]);
    expect(b.hash).toBe(a.hash);
    expect(b.timestamp).toBe(a.timestamp);
    expect(await assetCount()).toBe(before + 1);
    const got = await fetch(`${base}${API}/asset/${a.hash}`);
    expect(Buffer.from(await got.arrayBuffer()).equals(content)).toBe(true);
  });
});
