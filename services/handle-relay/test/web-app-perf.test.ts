import { describeInBrowser } from '@svc/testing/browser';
import fs from 'node:fs';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import { sealText } from '../src/client/index.js';
import { writeKeyFile } from '../src/client/key-file.js';
import { registerHandle, uniqueHandle } from './handle-factories.js';
import { ARTIFACTS_DIR, registerInBrowser, startWebWorld, type WebWorld } from './web-harness.js';

const BROWSER_TIMEOUT_MS = 120_000;
const THREAD = 1_000;
// The targets are 150 KB, 1 s and 1 s on an idle machine; the assertions leave room for a
// busy one (tests run beside each other), and the measured figures land in
// test-artifacts/web-metrics.json.
const SLACK = 3;

describeInBrowser()('the web app’s size and speed', () => {
  let world: WebWorld;
  const metrics: Record<string, number> = {};

  beforeAll(async () => {
    world = await startWebWorld('web_perf');
  }, BROWSER_TIMEOUT_MS);
  afterAll(async () => {
    fs.mkdirSync(ARTIFACTS_DIR, { recursive: true });
    fs.writeFileSync(
      path.join(ARTIFACTS_DIR, 'web-metrics.json'),
      `${JSON.stringify(metrics, null, 2)}\n`,
    );
    await world?.close();
  }, BROWSER_TIMEOUT_MS);

  it('ships at most 150 KB of JavaScript, gzipped', () => {
    const gzipped = ['app.js', 'sw.js']
      .map((file) => gzipSync(fs.readFileSync(path.join(world.webDir, file)), { level: 9 }).length)
      .reduce((a, b) => a + b, 0);
    metrics.js_gzip_bytes = gzipped;
    expect(gzipped).toBeLessThanOrEqual(150 * 1024);
  });

  it(
    'a first load reaches an interactive screen within the target',
    async () => {
      const { page } = await world.newPage();
      await page.goto(world.url);
      await page.getByRole('button', { name: 'Create a new key' }).waitFor();
      metrics.first_load_ms = await page.evaluate<number>('performance.now()');
      // Signed in, with a database to open and a stream to start.
      await registerInBrowser(page, world.url, uniqueHandle('fast'));
      await page.reload();
      await page.locator('body[data-ready="true"] .new-conversation').waitFor();
      metrics.signed_in_load_ms = await page.evaluate<number>('performance.now()');
      expect(metrics.first_load_ms).toBeLessThanOrEqual(1_000 * SLACK);
      expect(metrics.signed_in_load_ms).toBeLessThanOrEqual(1_000 * SLACK);
    },
    BROWSER_TIMEOUT_MS,
  );

  it(
    `a thread of ${THREAD} messages opens and renders within the target`,
    async () => {
      const bob = await registerHandle(world.t.app, 'relay.test');
      const dave = await registerHandle(world.t.app, 'relay.test');
      // Sealed here and stored in one statement: a thousand sends through HTTP would time the
      // database under the other tests' load, not the app.
      const now = new Date();
      const rows = Array.from({ length: THREAD }, (_, n) => ({
        recipient: bob.handle,
        envelope: JSON.stringify(
          sealText({
            text: `message number ${n}`,
            to: bob.record.fqhn,
            recipientPrimary: bob.record.primary,
            sender: dave.keys,
          }),
        ),
        created_at: now,
        created_text: now.toISOString(),
      }));
      await world.t.store.db.insertInto('message').values(rows).execute();
      // Bob opens the app with his key file: it catches up through the signed inbox.
      const keyFile = path.join(world.t.dataDir, 'bob-perf.key.json');
      await writeKeyFile(keyFile, bob.keys);
      const { page } = await world.newPage();
      await page.goto(world.url);
      const imported = performance.now();
      await page.getByLabel(/import a key file/i).setInputFiles(keyFile);
      await page
        .locator('.conversations a', { hasText: dave.handle })
        .locator('.count', { hasText: String(THREAD) })
        .waitFor({ timeout: 60_000 });
      metrics.catch_up_1000_ms = performance.now() - imported;
      const opened = `new Promise((resolve) => {
      const start = performance.now();
      location.hash = '#/c/${dave.handle}';
      const check = () =>
        document.querySelectorAll('.msg').length >= ${THREAD}
          ? requestAnimationFrame(() => resolve(performance.now() - start))
          : requestAnimationFrame(check);
      check();
    })`;
      metrics.thread_1000_open_ms = await page.evaluate<number>(opened);
      expect(await page.locator('.msg').count()).toBe(THREAD);
      // After a reload the thread comes from IndexedDB.
      await page.reload();
      await page
        .locator('.msg')
        .nth(THREAD - 1)
        .waitFor();
      metrics.thread_1000_reload_ms = await page.evaluate<number>('performance.now()');
      expect(await page.locator('.msg').count()).toBe(THREAD);
      expect(metrics.thread_1000_open_ms).toBeLessThanOrEqual(1_000 * SLACK);
    },
    BROWSER_TIMEOUT_MS,
  );
});
