import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { chromium, type Browser } from 'playwright-core';
import { ingestFile } from './asset-helpers.js';
import { describeInBrowser, findChromium } from '@svc/testing/browser';
import { createTestApp, type TestApp } from './test-app.js';

let t: TestApp;
let server: http.Server;
let base: string;
let browser: Browser;
/** Every request the server saw, with the status it answered. */
const seen: { url: string; status: number; ifNoneMatch?: string }[] = [];
/** Hits of the page a script in a stored asset would call if it ran. */
let beacons = 0;

describeInBrowser()('downloads in Chromium', () => {
  beforeAll(async () => {
    t = await createTestApp('browser_downloads');
    server = http.createServer((req, res) => {
      if (req.url?.startsWith('/beacon')) {
        beacons++;
        res.end();
        return;
      }
      if (req.url?.startsWith('/control')) {
        // The same content served plainly: proves the beacon fires when a script runs.
        res.setHeader('Content-Type', req.url.endsWith('.svg') ? 'image/svg+xml' : 'text/html');
        res.end(decodeURIComponent(req.url.split('?')[1] ?? ''));
        return;
      }
      // Express rewrites req.url while routing under a mount path.
      const url = req.url ?? '';
      res.on('finish', () =>
        seen.push({
          url,
          status: res.statusCode,
          ...(req.headers['if-none-match'] ? { ifNoneMatch: req.headers['if-none-match'] } : {}),
        }),
      );
      t.app(req, res);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    browser = await chromium.launch({
      executablePath: findChromium(),
      headless: true,
      // Root in a container has no user namespaces for Chromium's sandbox.
      args: ['--no-sandbox'],
    });
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    server?.closeAllConnections();
    await new Promise((resolve) => server?.close(resolve));
    await t?.close();
  });

  it('loads an asset twice and revalidates the second time with 304', async () => {
    const { hash } = await ingestFile(t.app, 'cached in the browser', 'a.txt');
    const url = `/api/v1/can/0/asset/${hash}`;
    const page = await browser.newPage();
    try {
      await page.goto(`${base}/healthz`);
      // In the page (source text: the tests compile without the DOM's types). `no-cache`: use
      // the cached copy only once the origin confirms it.
      const bodies = await page.evaluate(`(async () => {
        const first = await (await fetch(${JSON.stringify(url)})).text();
        const second = await (await fetch(${JSON.stringify(url)}, { cache: 'no-cache' })).text();
        return [first, second];
      })()`);
      expect(bodies).toEqual(['cached in the browser', 'cached in the browser']);
      expect(seen.filter((s) => s.url === url)).toEqual([
        { url, status: 200 },
        { url, status: 304, ifNoneMatch: `"${hash}"` },
      ]);
    } finally {
      await page.close();
    }
  });

  it.each([
    ['HTML', 'page.html', 'text/html', `<script>fetch('/beacon/html')</script><p>hi</p>`],
    [
      'SVG',
      'image.svg',
      'image/svg+xml',
      `<svg xmlns="http://www.w3.org/2000/svg"><script>fetch('/beacon/svg')</script></svg>`,
    ],
  ])('runs no script of an %s asset opened or framed', async (_kind, name, type, content) => {
    const { hash } = await ingestFile(t.app, content, name, { mime_type: type });
    const url = `${base}/api/v1/can/0/asset/${hash}`;
    const context = await browser.newContext({ acceptDownloads: true });
    try {
      const page = await context.newPage();
      // Opened directly: an attachment is saved, never rendered.
      await page.goto(url).catch(() => undefined);
      // Framed and embedded from the service's own origin.
      await page.goto(`${base}/healthz`);
      await page.evaluate(`
        for (const tag of ['iframe', 'object', 'embed']) {
          const el = document.createElement(tag);
          el.setAttribute(tag === 'object' ? 'data' : 'src', ${JSON.stringify(url)});
          document.body.append(el);
        }`);
      await page.waitForTimeout(1_000);
      expect(beacons).toBe(0);
      const ext = name.slice(name.lastIndexOf('.'));
      await page.goto(`${base}/control${ext}?${encodeURIComponent(content)}`);
      await page.waitForTimeout(500);
      expect(beacons).toBe(1);
      beacons = 0;
    } finally {
      await context.close();
    }
  });
});
