import { execFile } from 'node:child_process';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { promisify } from 'node:util';
import request from 'supertest';
import { ingestFile } from './asset-helpers.js';
import { createTestApp, type TestApp } from './test-app.js';

const run = promisify(execFile);
let t: TestApp;
let server: http.Server;
let base: string;
beforeAll(async () => {
  t = await createTestApp('conditional');
  server = http.createServer(t.app);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
  await t.close();
});

const asset = (hash: string) => `/api/v1/can/0/asset/${hash}`;
const httpDate = (ms: number) => new Date(ms).toUTCString();

describe('conditional downloads', () => {
  it('gives Last-Modified as the ingest time', async () => {
    const { hash, timestamp } = await ingestFile(t.app, 'dated', 'a.txt');
    const res = await request(t.app).get(asset(hash)).expect(200);
    expect(res.headers['last-modified']).toBe(httpDate(timestamp));
  });

  it('answers a matching If-None-Match with 304 even with Cache-Control: no-cache', async () => {
    const { hash } = await ingestFile(t.app, 'revalidate me', 'a.txt');
    for (const cacheControl of ['no-cache', 'max-age=0', 'no-store']) {
      const res = await request(t.app)
        .get(asset(hash))
        .set('If-None-Match', `"${hash}"`)
        .set('Cache-Control', cacheControl)
        .expect(304);
      expect(res.text).toBe('');
      expect(res.headers['etag']).toBe(`"${hash}"`);
      expect(res.headers['content-disposition']).toBeUndefined();
    }
    await request(t.app).get(asset(hash)).set('If-None-Match', '*').expect(304);
    await request(t.app).get(asset(hash)).set('If-None-Match', `"x", W/"${hash}"`).expect(304);
    await request(t.app).head(asset(hash)).set('If-None-Match', `"${hash}"`).expect(304);
    await request(t.app).get(asset(hash)).set('If-None-Match', '"other"').expect(200);
  });

  it('answers an If-Match that does not match with 412 in the envelope', async () => {
    const { hash } = await ingestFile(t.app, 'strict', 'a.txt');
    const res = await request(t.app).get(asset(hash)).set('If-Match', '"other"').expect(412);
    expect(res.body).toEqual({ status: 'error', error: 'precondition failed' });
    expect(res.headers['content-disposition']).toBeUndefined();
    await request(t.app).head(asset(hash)).set('If-Match', `W/"${hash}"`).expect(412);
    await request(t.app).get(asset(hash)).set('If-Match', `"a", "${hash}"`).expect(200);
    await request(t.app).get(asset(hash)).set('If-Match', '*').expect(200);
  });

  it('applies If-Modified-Since only without If-None-Match', async () => {
    const { hash, timestamp } = await ingestFile(t.app, 'since', 'a.txt');
    const later = httpDate(timestamp + 60_000);
    const earlier = httpDate(timestamp - 60_000);
    await request(t.app).get(asset(hash)).set('If-Modified-Since', later).expect(304);
    await request(t.app)
      .get(asset(hash))
      .set('If-Modified-Since', httpDate(timestamp))
      .set('Cache-Control', 'no-cache')
      .expect(304);
    await request(t.app).get(asset(hash)).set('If-Modified-Since', earlier).expect(200);
    await request(t.app).get(asset(hash)).set('If-Modified-Since', 'yesterday').expect(200);
    await request(t.app)
      .get(asset(hash))
      .set('If-Modified-Since', later)
      .set('If-None-Match', '"other"')
      .expect(200);
    await request(t.app)
      .get(asset(hash))
      .set('If-Modified-Since', earlier)
      .set('If-None-Match', `"${hash}"`)
      .expect(304);
    await request(t.app).get(asset(hash)).set('If-Unmodified-Since', earlier).expect(412);
    await request(t.app).get(asset(hash)).set('If-Unmodified-Since', later).expect(200);
  });

  it('serves the range under a matching If-Range and the whole content otherwise', async () => {
    const { hash, timestamp } = await ingestFile(t.app, '0123456789', 'a.txt');
    const ranged = (ifRange: string) =>
      request(t.app).get(asset(hash)).set('Range', 'bytes=2-4').set('If-Range', ifRange);
    expect((await ranged(`"${hash}"`).expect(206)).text).toBe('234');
    expect((await ranged(httpDate(timestamp)).expect(206)).text).toBe('234');
    expect((await ranged('"other"').expect(200)).text).toBe('0123456789');
    expect((await ranged(`W/"${hash}"`).expect(200)).text).toBe('0123456789');
    expect((await ranged(httpDate(timestamp + 60_000)).expect(200)).text).toBe('0123456789');
  });
});

describe('conditional downloads from real clients', () => {
  it("revalidates with Node's fetch (undici), which sends Cache-Control: no-cache", async () => {
    const { hash } = await ingestFile(t.app, 'fetched twice', 'a.txt');
    const first = await fetch(`${base}${asset(hash)}`);
    expect(first.status).toBe(200);
    expect(await first.text()).toBe('fetched twice');
    const etag = first.headers.get('etag')!;
    const second = await fetch(`${base}${asset(hash)}`, { headers: { 'If-None-Match': etag } });
    expect(second.status).toBe(304);
    const since = await fetch(`${base}${asset(hash)}`, {
      headers: { 'If-Modified-Since': first.headers.get('last-modified')! },
    });
    expect(since.status).toBe(304);
  });

  it('revalidates with curl', async () => {
    const { hash } = await ingestFile(t.app, 'curled', 'a.txt');
    const url = `${base}${asset(hash)}`;
    const status = async (...headers: string[]) => {
      const args = ['-s', '-o', '/dev/null', '-w', '%{http_code}'];
      for (const h of headers) args.push('-H', h);
      return (await run('curl', [...args, url])).stdout;
    };
    expect(await status(`If-None-Match: "${hash}"`, 'Cache-Control: no-cache')).toBe('304');
    expect(await status('If-Match: "nope"')).toBe('412');
    expect(await status()).toBe('200');
  });
});
