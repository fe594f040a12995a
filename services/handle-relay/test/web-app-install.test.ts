import { describeInBrowser } from '@svc/testing/browser';
import { uniqueHandle } from './handle-factories.js';
import {
  openConversation,
  registerInBrowser,
  screenshot,
  sendInBrowser,
  startWebWorld,
  waitForLive,
  type WebWorld,
} from './web-harness.js';

const BROWSER_TIMEOUT_MS = 90_000;

interface Manifest {
  name: string;
  short_name: string;
  start_url: string;
  scope: string;
  display: string;
  theme_color: string;
  icons: { src: string; sizes: string; type: string; purpose: string }[];
}

describeInBrowser()('the web app, installed on a phone', () => {
  let world: WebWorld;

  beforeAll(async () => {
    world = await startWebWorld('web_install');
  }, BROWSER_TIMEOUT_MS);
  afterAll(async () => {
    await world?.close();
  }, BROWSER_TIMEOUT_MS);

  it('has a web app manifest whose icons are PNGs of the sizes it says', async () => {
    const res = await fetch(`${world.url}/manifest.webmanifest`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^application\/manifest\+json/);
    const manifest = (await res.json()) as Manifest;
    expect(manifest).toMatchObject({
      name: 'Handle Relay',
      short_name: 'Relay',
      start_url: '/',
      scope: '/',
      display: 'standalone',
    });
    expect(manifest.icons.map((i) => [i.sizes, i.purpose])).toEqual([
      ['192x192', 'any'],
      ['512x512', 'any'],
      ['512x512', 'maskable'],
    ]);
    const icons = [
      ...manifest.icons.map((i) => [i.src, i.sizes]),
      ['/apple-touch-icon.png', '180x180'],
    ];
    for (const [src, sizes] of icons) {
      const icon = await fetch(`${world.url}${src}`);
      expect([src, icon.status, icon.headers.get('content-type')]).toEqual([src, 200, 'image/png']);
      const png = Buffer.from(await icon.arrayBuffer());
      expect(png.subarray(1, 4).toString('latin1')).toBe('PNG');
      expect(`${png.readUInt32BE(16)}x${png.readUInt32BE(20)}`).toBe(sizes);
    }
  });

  it(
    'Chromium finds nothing against installing it; iOS finds its icon and title',
    async () => {
      const { page, context } = await world.newPage({ phone: true });
      await page.goto(world.url);
      await page.evaluate('navigator.serviceWorker.ready.then(() => true)');
      const cdp = await context.newCDPSession(page);
      // A test's browser context is incognito, which alone keeps Chromium from installing.
      const { installabilityErrors } = await cdp.send('Page.getInstallabilityErrors');
      expect(installabilityErrors.map((e) => e.errorId)).toEqual(['in-incognito']);
      const manifest = await cdp.send('Page.getAppManifest');
      expect([manifest.url, manifest.errors]).toEqual([`${world.url}/manifest.webmanifest`, []]);
      expect(await page.locator('link[rel="apple-touch-icon"]').getAttribute('href')).toBe(
        '/apple-touch-icon.png',
      );
      expect(
        await page.locator('meta[name="apple-mobile-web-app-title"]').getAttribute('content'),
      ).toBe('Relay');
    },
    BROWSER_TIMEOUT_MS,
  );

  it(
    'with no network, the app still starts from its shell and shows the kept conversation',
    async () => {
      const { page, context } = await world.newPage({ phone: true });
      const me = uniqueHandle('offline');
      await registerInBrowser(page, world.url, me);
      await page.evaluate('navigator.serviceWorker.ready.then(() => true)');
      await openConversation(page, me);
      await sendInBrowser(page, 'A note to myself, kept on the phone');
      // Controlled by the worker once reloaded (the first load installed it).
      await page.reload();
      await waitForLive(page);
      expect(await page.evaluate('navigator.serviceWorker.controller !== null')).toBe(true);

      await context.setOffline(true);
      await page.reload();
      await page.locator('#who', { hasText: `${me}@` }).waitFor();
      await page
        .locator('.msg .text', { hasText: 'A note to myself, kept on the phone' })
        .first()
        .waitFor();
      await page.locator('body[data-sync="offline"]').waitFor();
      await screenshot(page, 'offline-shell');
      // Written offline: shown as not sent, with a retry that works once back online.
      await page.locator('#compose').fill('Written in a tunnel');
      await page.locator('#compose').press('Enter');
      const failed = page.locator('.msg[data-state="failed"]', { hasText: 'Written in a tunnel' });
      await failed.waitFor();
      await context.setOffline(false);
      await waitForLive(page);
      await failed.getByRole('button', { name: 'Retry' }).click();
      await page
        .locator('.msg[data-state="stored"] .text', { hasText: 'Written in a tunnel' })
        .first()
        .waitFor();
    },
    BROWSER_TIMEOUT_MS,
  );
});
