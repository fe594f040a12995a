import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import request from 'supertest';
import { PUBLIC_ENDPOINTS } from '../src/web/placeholder-page.js';
import { createTestApp, SETUP_TIMEOUT_MS, type TestApp } from './test-app.js';

const err = (code: string, message: string) => ({ error: { code, message } });

/** The headers every page and file of the web root carries (as the asset-store console). */
const PAGE_HEADERS = {
  'content-security-policy':
    "default-src 'self'; img-src 'self' data:; object-src 'none'; base-uri 'none'; frame-ancestors 'none'; form-action 'self'",
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
};

function pageHeaders(headers: Record<string, string | undefined>): Record<string, unknown> {
  return Object.fromEntries(Object.keys(PAGE_HEADERS).map((name) => [name, headers[name]]));
}

describe('without web_dir', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp('web_placeholder');
  }, SETUP_TIMEOUT_MS);
  afterAll(async () => {
    await t.close();
  }, SETUP_TIMEOUT_MS);

  it('serves a placeholder page naming the server and version and listing every public path', async () => {
    const res = await request(t.app).get('/').expect(200);
    expect(res.headers['content-type']).toMatch(/^text\/html/);
    expect(res.text).toContain('relay.test');
    expect(res.text).toContain('0.1.0');
    for (const [method, p] of PUBLIC_ENDPOINTS) expect(res.text).toContain(`${method} ${p}`);
    for (const p of [
      '/v1/healthz',
      '/v1/u/{handle}',
      '/v1/by-primary/{primary}',
      '/v1/register',
      '/v1/profile/{handle}/proofs',
      '/v1/messages',
      '/v1/inbox/{handle}',
      '/v1/inbox/{handle}/stream',
      '/v1/push/vapid-public-key',
      '/v1/push/subscribe/{handle}',
      '/v1/push/unsubscribe/{handle}',
      '/.well-known/webfinger',
      '/internal/nats/auth',
    ]) {
      expect(res.text).toContain(p);
    }
  });

  it('serves the placeholder page with a CSP that forbids framing, nosniff and no referrer', async () => {
    const res = await request(t.app).get('/').expect(200);
    expect(pageHeaders(res.headers)).toEqual(PAGE_HEADERS);
  });

  it('answers other unknown paths with a JSON 404', async () => {
    const res = await request(t.app).get('/app/settings').expect(404);
    expect(res.body).toEqual(err('not_found', 'no such route'));
    await request(t.app).post('/app/settings').expect(404);
  });

  it('answers another method on the placeholder page with 405', async () => {
    const res = await request(t.app).post('/').expect(405);
    expect(res.headers.allow).toBe('GET');
    expect(res.body).toEqual(err('method_not_allowed', 'method not allowed'));
    await request(t.app).head('/').expect(200);
  });
});

describe('with web_dir', () => {
  let t: TestApp;
  let base: string;
  beforeAll(async () => {
    base = fs.mkdtempSync(path.join(os.tmpdir(), 'handle-relay-web-'));
    const webDir = path.join(base, 'www');
    fs.mkdirSync(path.join(webDir, 'assets'), { recursive: true });
    fs.writeFileSync(path.join(webDir, 'index.html'), '<!doctype html><p>client app</p>');
    fs.writeFileSync(path.join(webDir, 'assets', 'app.css'), 'body{color:red}');
    fs.writeFileSync(path.join(webDir, 'assets', 'app.js'), 'console.log(1)');
    fs.writeFileSync(path.join(webDir, '.env'), 'SECRET=dotfile');
    fs.writeFileSync(path.join(base, 'secret.txt'), 'TOP SECRET');
    fs.mkdirSync(path.join(base, 'private'));
    fs.writeFileSync(path.join(base, 'private', 'key.txt'), 'TOP SECRET KEY');
    fs.symlinkSync(path.join(base, 'secret.txt'), path.join(webDir, 'leak.txt'));
    fs.symlinkSync(path.join(base, 'private'), path.join(webDir, 'private'));
    fs.symlinkSync(path.join(webDir, 'assets', 'app.css'), path.join(webDir, 'theme.css'));
    t = await createTestApp('web_static', { web_dir: webDir });
  }, SETUP_TIMEOUT_MS);
  afterAll(async () => {
    await t.close();
    fs.rmSync(base, { recursive: true, force: true });
  }, SETUP_TIMEOUT_MS);

  it('serves index.html at /', async () => {
    const res = await request(t.app).get('/').expect(200);
    expect(res.headers['content-type']).toMatch(/^text\/html/);
    expect(res.text).toBe('<!doctype html><p>client app</p>');
  });

  it('serves files with their content types', async () => {
    const css = await request(t.app).get('/assets/app.css').expect(200);
    expect(css.headers['content-type']).toMatch(/^text\/css/);
    expect(css.text).toBe('body{color:red}');
    const js = await request(t.app).get('/assets/app.js').expect(200);
    expect(js.headers['content-type']).toMatch(/javascript/);
  });

  it('falls back to index.html for client-side routes', async () => {
    const res = await request(t.app).get('/inbox/alice/settings').expect(200);
    expect(res.headers['content-type']).toMatch(/^text\/html/);
    expect(res.text).toBe('<!doctype html><p>client app</p>');
  });

  it.each([
    '/../secret.txt',
    '/assets/../../secret.txt',
    '/%2e%2e/secret.txt',
    '/..%2fsecret.txt',
    '/assets/%2e%2e%2f%2e%2e%2fsecret.txt',
    '/.env',
  ])('never serves anything outside web_dir or a dotfile: %s', async (p) => {
    const res = await request(t.app).get(p);
    expect(res.text).not.toContain('TOP SECRET');
    expect(res.text).not.toContain('SECRET=dotfile');
  });

  it.each(['/leak.txt', '/private/key.txt', '/private/'])(
    'treats a symlink that leads out of web_dir as no file and falls back: %s',
    async (p) => {
      const res = await request(t.app).get(p).expect(200);
      expect(res.headers['content-type']).toMatch(/^text\/html/);
      expect(res.text).toBe('<!doctype html><p>client app</p>');
    },
  );

  it('serves a symlink that stays inside web_dir', async () => {
    const res = await request(t.app).get('/theme.css').expect(200);
    expect(res.headers['content-type']).toMatch(/^text\/css/);
    expect(res.text).toBe('body{color:red}');
  });

  it.each(['/v1/nothing', '/v1/u', '/v1/u/alice/extra', '/.well-known/other', '/internal/x'])(
    'answers the unknown API route %s with a JSON 404, never the HTML fallback',
    async (p) => {
      const res = await request(t.app).get(p).expect(404);
      expect(res.headers['content-type']).toMatch(/^application\/json/);
      expect(res.body).toEqual(err('not_found', 'no such route'));
    },
  );

  it('keeps API routes ahead of the fallback', async () => {
    const res = await request(t.app).get('/v1/healthz').expect(200);
    expect(res.body).toEqual({
      status: 'ok',
      server: 'relay.test',
      version: '0.1.0',
      log_key: expect.stringMatching(/^ed25519:[0-9a-f]{64}$/) as string,
    });
  });

  it('serves the app, its files and its client routes with a CSP that forbids framing, nosniff and no referrer', async () => {
    // A <meta> cannot carry frame-ancestors: only the header stops another site framing the
    // app that holds the user's key.
    for (const p of ['/', '/index.html', '/assets/app.js', '/assets/app.css', '/inbox/alice']) {
      const res = await request(t.app).get(p).expect(200);
      expect({ path: p, ...pageHeaders(res.headers) }).toEqual({ path: p, ...PAGE_HEADERS });
    }
  });

  it('answers other methods on the client app paths with 405, never the fallback', async () => {
    for (const p of ['/', '/inbox/alice', '/assets/app.css']) {
      const res = await request(t.app).post(p).expect(405);
      expect(res.headers.allow).toBe('GET');
      expect(res.body).toEqual(err('method_not_allowed', 'method not allowed'));
    }
  });
});

describe('POST /internal/nats/auth', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp('nats_auth');
  }, SETUP_TIMEOUT_MS);
  afterAll(async () => {
    await t.close();
  }, SETUP_TIMEOUT_MS);

  it('always answers 501 not_implemented', async () => {
    const res = await request(t.app).post('/internal/nats/auth').send({ user: 'x' }).expect(501);
    expect(res.body).toEqual(
      err('not_implemented', 'the message-bus auth callout is not implemented in this version'),
    );
  });

  it('answers 405 for another method', async () => {
    const res = await request(t.app).get('/internal/nats/auth').expect(405);
    expect(res.headers.allow).toBe('POST');
  });
});
