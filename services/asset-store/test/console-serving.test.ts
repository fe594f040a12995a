import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import request from 'supertest';
import { buildConsole } from './console-harness.js';
import { createTestApp, type TestApp } from './test-app.js';

const CSP =
  "default-src 'self'; img-src 'self' blob:; media-src 'self' blob:; frame-src 'self'; " +
  "object-src 'none'; base-uri 'none'; " +
  "frame-ancestors 'none'; form-action 'self'";

describe('the console at /console/, built', () => {
  let t: TestApp;
  let dir: string;
  beforeAll(async () => {
    dir = buildConsole('console_serving');
    t = await createTestApp('console_serving', {}, { consoleDir: dir });
  }, 60_000);
  afterAll(async () => {
    await t?.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('serves its page with a strict same-origin CSP, nosniff and no caching without a check', async () => {
    const res = await request(t.app).get('/console/');
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(res.headers['content-security-policy']).toBe(CSP);
    expect(res.headers['x-content-type-options']).toBe('nosniff');
    expect(res.headers['cache-control']).toBe('no-cache');
    expect(res.text).toBe(fs.readFileSync(path.join(dir, 'index.html'), 'utf8'));
  });

  it("preloads the grid's first page with the page at /console/, and only there", async () => {
    const res = await request(t.app).get('/console/');
    expect(res.headers.link).toBe(
      '</api/v1/can/0/search?sort=taken&limit=200>; rel=preload; as=fetch; crossorigin=anonymous',
    );
    // Other views, or filters in the URL, ask something else first: nothing to preload.
    for (const route of [
      '/console/?tags=a',
      '/console/trash',
      '/console/jobs',
      '/console/app.js',
    ]) {
      const other = await request(t.app).get(route);
      expect([route, other.status, other.headers.link]).toEqual([route, 200, undefined]);
    }
  });

  it('serves the script, the upload module and the stylesheet with their types', async () => {
    const js = await request(t.app).get('/console/app.js');
    expect(js.status).toBe(200);
    expect(js.headers['content-type']).toBe('text/javascript; charset=utf-8');
    expect(js.headers['content-security-policy']).toBe(CSP);
    expect(js.text).toBe(fs.readFileSync(path.join(dir, 'app.js'), 'utf8'));
    const tus = await request(t.app).get('/console/tus.js');
    expect(tus.status).toBe(200);
    expect(tus.headers['content-type']).toBe('text/javascript; charset=utf-8');
    expect(tus.text).toBe(fs.readFileSync(path.join(dir, 'tus.js'), 'utf8'));
    const css = await request(t.app).get('/console/styles.css');
    expect(css.status).toBe(200);
    expect(css.headers['content-type']).toBe('text/css; charset=utf-8');
  });

  it('answers every client route with the page, so a reload or a bookmark works', async () => {
    const page = fs.readFileSync(path.join(dir, 'index.html'), 'utf8');
    for (const route of ['/console/trash', '/console/jobs', `/console/asset/${'a'.repeat(64)}`]) {
      const res = await request(t.app).get(route);
      expect([route, res.status, res.headers['content-type']]).toEqual([
        route,
        200,
        'text/html; charset=utf-8',
      ]);
      expect(res.text).toBe(page);
      expect(res.headers['content-security-policy']).toBe(CSP);
    }
  });

  it('serves its icon at /favicon.ico (an ICO holding a 32 px PNG) and declares it in the page', async () => {
    const res = await request(t.app).get('/favicon.ico').buffer(true);
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toBe('image/x-icon');
    expect(res.headers['cache-control']).toBe('public, max-age=86400');
    const body = res.body as Buffer;
    expect(body.equals(fs.readFileSync(path.join(dir, 'favicon.ico')))).toBe(true);
    // ICONDIR: reserved 0, type 1 (icon), one image of 32×32 whose bytes are a PNG.
    expect([body.readUInt16LE(0), body.readUInt16LE(2), body.readUInt16LE(4)]).toEqual([0, 1, 1]);
    expect([body[6], body[7]]).toEqual([32, 32]);
    const at = body.readUInt32LE(18);
    expect(body.subarray(at, at + 8).toString('latin1')).toBe('\x89PNG\r\n\x1a\n');
    expect(body.readUInt32LE(14)).toBe(body.length - at);
    const svg = await request(t.app).get('/console/icon.svg');
    expect(svg.status).toBe(200);
    expect(svg.headers['content-type']).toBe('image/svg+xml');
    const html = (await request(t.app).get('/console/')).text;
    expect(html).toContain('<link rel="icon" href="/console/icon.svg" type="image/svg+xml" />');
    expect(html).toContain('<link rel="icon" href="/favicon.ico" sizes="32x32" />');
  });

  it('redirects /console to /console/', async () => {
    const res = await request(t.app).get('/console');
    expect(res.status).toBe(301);
    expect(res.headers.location).toBe('/console/');
  });

  it('answers a missing file with a 404 in the envelope, not the page', async () => {
    const res = await request(t.app).get('/console/nothing-here.js');
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ status: 'error', error: 'no such console file' });
  });

  it('refuses paths that climb out of the folder', async () => {
    const res = await request(t.app).get('/console/..%2f..%2fpackage.json');
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ status: 'error', error: 'no such console file' });
  });

  it('answers another method with 405 and Allow', async () => {
    const res = await request(t.app).post('/console/').send({});
    expect(res.status).toBe(405);
    expect(res.headers.allow).toBe('GET, HEAD');
    expect(res.body).toEqual({ status: 'error', error: 'method not allowed' });
  });
});

describe('the console of a service that asks an API token', () => {
  let t: TestApp;
  let dir: string;
  beforeAll(async () => {
    dir = buildConsole('console_token');
    t = await createTestApp('console_token', { api_token: 'console-token' }, { consoleDir: dir });
  }, 60_000);
  afterAll(async () => {
    await t?.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('preloads nothing: a preload cannot send the token, and would only be refused', async () => {
    const res = await request(t.app).get('/console/');
    expect(res.status).toBe(200);
    expect(res.headers.link).toBeUndefined();
  });
});

describe('the console, not built', () => {
  let t: TestApp;
  const missing = path.join(os.tmpdir(), 'asset-store-console-never-built');
  beforeAll(async () => {
    t = await createTestApp('console_unbuilt', {}, { consoleDir: missing });
  });
  afterAll(() => t?.close());

  it('answers /favicon.ico with a 404 (nothing built to serve)', async () => {
    const res = await request(t.app).get('/favicon.ico');
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ status: 'error', error: 'no such route' });
  });

  it('answers 503 in the envelope, saying to run pnpm build', async () => {
    for (const route of ['/console/', '/console/app.js', '/console/trash']) {
      const res = await request(t.app).get(route);
      expect([route, res.status]).toEqual([route, 503]);
      expect(res.body).toEqual({
        status: 'error',
        error:
          'the console is not built: run `pnpm build` (it writes services/asset-store/web/dist)',
      });
    }
  });

  it('still serves the API', async () => {
    const res = await request(t.app).get('/api/v1/can/0/list');
    expect(res.status).toBe(200);
  });
});

describe('the console turned off (console: false)', () => {
  let t: TestApp;
  let dir: string;
  beforeAll(async () => {
    dir = buildConsole('console_off');
    t = await createTestApp('console_off', { console: false }, { consoleDir: dir });
  }, 60_000);
  afterAll(async () => {
    await t?.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('leaves /console/ (and its icon) unrouted: 404 in the envelope', async () => {
    for (const route of ['/console/', '/console/app.js', '/console', '/favicon.ico']) {
      const res = await request(t.app).get(route);
      expect([route, res.status]).toEqual([route, 404]);
      expect(res.body).toEqual({ status: 'error', error: 'no such route' });
    }
  });
});
