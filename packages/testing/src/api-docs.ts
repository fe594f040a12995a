import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { chromium } from 'playwright-core';
import { describeInBrowser, findChromium } from './browser.js';

/** What a person opening a service's `/docs` in Chromium got. */
export interface ApiDocsVisit {
  /** The page's HTTP status and headers. */
  status: number;
  headers: Record<string, string>;
  /** Every operation of `/openapi.json`, as `METHOD /path`. */
  operations: string[];
  /** Those the reference's navigation does not list. */
  missing: string[];
  /** Console errors and uncaught exceptions of the page. */
  consoleErrors: string[];
  /** Requests to anything but the service's own origin (fonts included). */
  outside: string[];
}

const METHODS = ['get', 'put', 'post', 'delete', 'patch', 'head', 'options'];

/**
 * Opens `<baseUrl>/docs` in headless Chromium, waits for the reference to render, opens
 * every collapsed group of its navigation, and reports which of the document's operations
 * it lists (Scalar marks each entry `data-sidebar-id="…/<METHOD>/<path>"`).
 */
export async function visitApiDocs(baseUrl: string, screenshot?: string): Promise<ApiDocsVisit> {
  const doc = (await (await fetch(`${baseUrl}/openapi.json`)).json()) as {
    paths: Record<string, Record<string, unknown>>;
  };
  const operations = Object.entries(doc.paths).flatMap(([path, item]) =>
    METHODS.filter((m) => m in item).map((m) => `${m.toUpperCase()} ${path}`),
  );
  const browser = await chromium.launch({
    executablePath: findChromium(),
    headless: true,
    // Root in a container has no user namespaces for Chromium's sandbox.
    args: ['--no-sandbox'],
  });
  try {
    const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
    const consoleErrors: string[] = [];
    const outside: string[] = [];
    page.on('console', (m) => {
      if (m.type() === 'error') consoleErrors.push(m.text());
    });
    page.on('pageerror', (e) => consoleErrors.push(e.message));
    page.on('request', (r) => {
      if (!r.url().startsWith(`${baseUrl}/`)) outside.push(r.url());
    });
    const res = await page.goto(`${baseUrl}/docs`);
    if (!res) throw new Error('no answer for /docs');
    const nav = page.locator('[data-sidebar-id]');
    await nav.first().waitFor({ timeout: 30_000 });
    // Groups (tags) start collapsed: open each once, so their operations are in the page.
    for (const group of await page
      .locator('[data-sidebar-id] button[aria-expanded="false"]')
      .all()) {
      await group.click();
    }
    const ids: string[] = [];
    for (const entry of await nav.all())
      ids.push((await entry.getAttribute('data-sidebar-id')) ?? '');
    const listed = new Set(ids.map((id) => id.slice(id.indexOf('/') + 1)));
    const missing = operations.filter((op) => {
      const [method, path] = op.split(' ') as [string, string];
      return !listed.has(`${method}${path}`);
    });
    if (screenshot) await page.screenshot({ path: screenshot });
    return {
      status: res.status(),
      headers: res.headers(),
      operations,
      missing,
      consoleErrors,
      outside,
    };
  } finally {
    await browser.close();
  }
}

/** What `apiDocsSuite` needs of a service: a request handler to serve, and its shutdown. */
export interface ApiDocsTarget {
  handler: http.RequestListener;
  close(): Promise<void>;
}

/**
 * Both services' `/docs` suite: serves the app on a loopback port, checks the licence that
 * `/openapi.json` declares, and (with a Chromium) that `/docs` lists every operation, from
 * its own origin only, without a console error, behind the security headers.
 */
export function apiDocsSuite(options: {
  start(): Promise<ApiDocsTarget>;
  screenshot: string;
  minOperations: number;
  setupTimeoutMs: number;
}): void {
  let target: ApiDocsTarget;
  let server: http.Server;
  let baseUrl: string;
  beforeAll(async () => {
    target = await options.start();
    server = await new Promise<http.Server>((resolve) => {
      const s = http.createServer(target.handler).listen(0, '127.0.0.1', () => resolve(s));
    });
    baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  }, options.setupTimeoutMs);
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
    await target.close();
  });

  it('/openapi.json declares the Apache-2.0 licence', async () => {
    const doc = (await (await fetch(`${baseUrl}/openapi.json`)).json()) as { info: unknown };
    expect(doc.info).toMatchObject({ license: { name: 'Apache-2.0', identifier: 'Apache-2.0' } });
  });

  describeInBrowser()('GET /docs in Chromium', () => {
    it('lists every operation of /openapi.json, from this origin only, without a console error', async () => {
      const visit = await visitApiDocs(baseUrl, options.screenshot);
      expect(visit.status).toBe(200);
      expect(visit.headers['content-security-policy']).toMatch(/^default-src 'self';/);
      expect(visit.headers['x-content-type-options']).toBe('nosniff');
      expect(visit.headers['referrer-policy']).toBe('no-referrer');
      expect(visit.operations.length).toBeGreaterThan(options.minOperations);
      expect(visit.missing).toEqual([]);
      expect(visit.consoleErrors).toEqual([]);
      expect(visit.outside).toEqual([]);
    });
  });
}
