import fs from 'node:fs';
import path from 'node:path';
import { describeInBrowser } from '@svc/testing/browser';
import type { Page } from 'playwright-core';
import request from 'supertest';
import { findAssetByHash } from '../src/assets/asset.repository.js';
import { type Ingested, ingestFile, solidPng } from './asset-helpers.js';
import { screenshot, startConsoleWorld, until, type ConsoleWorld } from './console-harness.js';

const BROWSER_TIMEOUT_MS = 90_000;
const ADMIN = 'console-admin-views-token';
const API = '/api/v1/can/0';
/** More than the trash view's first screen (50), so "More" has something to bring. */
const TRASHED = 56;

/** A small PNG of one colour. */
const png = (r: number) => solidPng(64, 48, { r, g: 80, b: 160 });

describeInBrowser()('the console: trash, jobs and the icon (admin)', () => {
  let world: ConsoleWorld;
  let page: Page;
  /** Every response the page got that was not a success or a redirect. */
  const failed: string[] = [];
  const trashed: (Ingested & { name: string })[] = [];

  beforeAll(async () => {
    world = await startConsoleWorld('console_admin', { admin_token: ADMIN });
    for (let i = 0; i < TRASHED; i++) {
      const name = `old-${String(i).padStart(2, '0')}.png`;
      const ingested = await ingestFile(world.t.app, await png(i * 4), name, {
        human_file_name: name,
      });
      const res = await request(world.t.app).delete(`${API}/asset/${ingested.hash}`);
      expect(res.status).toBe(200);
      trashed.push({ ...ingested, name });
    }
    page = (await world.newPage()).page;
    page.on('response', (res) => {
      if (res.status() >= 400 && !res.url().includes('/admin/'))
        failed.push(`${res.status()} ${res.url()}`);
    });
  }, BROWSER_TIMEOUT_MS);
  afterAll(async () => {
    await world?.close();
  }, BROWSER_TIMEOUT_MS);

  it(
    'declares its icon, which the service serves (no 404 for /favicon.ico)',
    async () => {
      await page.goto('/console/');
      const icons = await page.evaluate<[string, string | null][]>(
        "[...document.querySelectorAll('link[rel=icon]')].map((l) => [l.href, l.getAttribute('type')])",
      );
      expect(icons).toEqual([
        [`${world.url}/console/icon.svg`, 'image/svg+xml'],
        [`${world.url}/favicon.ico`, null],
      ]);
      const res = await page.request.get('/favicon.ico');
      expect([res.status(), res.headers()['content-type']]).toEqual([200, 'image/x-icon']);
      expect(failed).toEqual([]);
    },
    BROWSER_TIMEOUT_MS,
  );

  it(
    'lists the trash a screen at a time with thumbnails; says its end only once More is gone',
    async () => {
      await page.getByRole('link', { name: 'Trash' }).click();
      await page.waitForURL('**/console/trash');
      const rows = page.locator('.trash tbody tr');
      const more = page.getByRole('button', { name: 'More' });
      await more.waitFor();
      // Newest first; a screen (50 here) and More, never the end beside it.
      await until(async () => (await rows.count()) >= 50);
      const first = await page.evaluate<string[]>(
        "[...document.querySelectorAll('.trash tbody tr')].map((tr) => tr.dataset.hash)",
      );
      expect(first).toEqual(
        trashed
          .map((a) => a.hash)
          .reverse()
          .slice(0, first.length),
      );
      expect(await page.locator('.trash .note').textContent()).toBe('');
      // Every row's thumbnail, decoded by the browser (a real image, not a broken one).
      const decoded = () =>
        page.evaluate<number>(
          "[...document.querySelectorAll('.trash tbody .mini-thumb img')].filter((i) => i.complete && i.naturalWidth > 0).length",
        );
      await until(async () => (await decoded()) === first.length);
      await screenshot(page, 'console-trash');
      await more.click();
      await page.locator('.trash .note', { hasText: 'End of the trash.' }).waitFor();
      expect(await rows.count()).toBe(TRASHED);
      expect(await more.isVisible()).toBe(false);
    },
    BROWSER_TIMEOUT_MS,
  );

  it(
    'deletes one asset forever after a confirmation, asking for the admin token',
    async () => {
      const target = trashed[TRASHED - 1]!;
      const row = page.locator(`tr[data-hash="${target.hash}"]`);
      await row.getByRole('button', { name: `Delete ${target.name} forever` }).click();
      const confirm = page.getByRole('dialog', { name: `Delete ${target.name} forever?` });
      // Cancel first: nothing happens.
      await confirm.getByRole('button', { name: 'Cancel' }).click();
      await confirm.waitFor({ state: 'detached' });
      expect(await findAssetByHash(world.t.index.db, target.hash)).toBeDefined();
      await row.getByRole('button', { name: `Delete ${target.name} forever` }).click();
      await confirm.getByRole('button', { name: 'Delete forever' }).click();
      const token = page.getByRole('dialog', { name: 'Token needed' });
      await token.getByLabel('Admin token').fill(ADMIN);
      await token.getByRole('button', { name: 'Continue' }).click();
      await row.waitFor({ state: 'detached' });
      expect(await page.locator('#status').textContent()).toBe(`Deleted ${target.name} forever.`);
      expect(await findAssetByHash(world.t.index.db, target.hash)).toBeUndefined();
      expect(fs.existsSync(path.join(world.t.storageRoot, target.filename))).toBe(false);
    },
    BROWSER_TIMEOUT_MS,
  );

  it(
    'empties the trash after a confirmation, leaving assets not in it alone',
    async () => {
      const kept = await ingestFile(world.t.app, 'not trashed', 'kept.txt');
      await page.getByRole('button', { name: 'Empty trash' }).click();
      const confirm = page.getByRole('dialog', { name: 'Empty the trash?' });
      await confirm.getByRole('button', { name: 'Delete all forever' }).click();
      await page.locator('.trash .note', { hasText: 'The trash is empty.' }).waitFor();
      expect(await page.locator('#status').textContent()).toBe(`Deleted ${TRASHED - 1} forever.`);
      expect(await page.locator('.trash tbody tr').count()).toBe(0);
      expect(await page.getByRole('button', { name: 'Empty trash' }).isDisabled()).toBe(true);
      expect(await page.getByRole('button', { name: 'More' }).isVisible()).toBe(false);
      const left = await world.t.index.db.selectFrom('asset').select('hash').execute();
      expect(left).toEqual([{ hash: kept.hash }]);
      for (const a of trashed)
        expect(fs.existsSync(path.join(world.t.storageRoot, a.filename))).toBe(false);
    },
    BROWSER_TIMEOUT_MS,
  );

  it(
    'says how to get the admin token, asks before a hard rebuild, and renders job results in words',
    async () => {
      await page.getByRole('link', { name: 'Jobs' }).click();
      await page.waitForURL('**/console/jobs');
      const help = page.locator('.help');
      await help.getByText('Jobs need the admin token').waitFor();
      const helpText = (await help.textContent()) ?? '';
      // Where the quick start's token is, the settings, and how to send it.
      expect(helpText).toContain(
        'Started with pnpm start, the service wrote one to services/asset-store/data/admin-token',
      );
      expect(helpText).toContain('admin_token_file');
      expect(helpText).toContain('ASSET_STORE_ADMIN_TOKEN');
      expect(helpText).toContain('with neither, every admin endpoint answers 403');
      expect(helpText).toContain(
        'ASSET_STORE_TOKEN=$(cat services/asset-store/data/admin-token) asset-store jobs',
      );
      expect(helpText).toContain('Authorization: Bearer <the token>');
      await page.getByText('No jobs yet.').waitFor();

      await page.getByRole('button', { name: 'Hard rebuild' }).click();
      const confirm = page.getByRole('dialog', { name: 'Hard rebuild?' });
      await confirm.getByText('empties the index').waitFor();
      await page.keyboard.press('Escape');
      await confirm.waitFor({ state: 'detached' });
      const jobs = () => world.t.index.db.selectFrom('job').select(['kind', 'mode']).execute();
      expect(await jobs()).toEqual([]);

      await page.getByRole('button', { name: 'Verify all files' }).click();
      const verify = page.locator('li[data-kind="verify"]');
      await verify.locator('[data-status="done"], .result').first().waitFor();
      await until(async () => (await verify.getAttribute('data-status')) === 'done');
      expect(await verify.locator('.result').textContent()).toMatch(
        /^Checked 1 file: all match their hashes\. Took \d+(\.\d)? m?s\.$/,
      );

      await page.getByRole('button', { name: 'Hard rebuild' }).click();
      await confirm.getByRole('button', { name: 'Start hard rebuild' }).click();
      const rebuild = page.locator('li[data-kind="rebuild"]');
      await until(async () => (await rebuild.getAttribute('data-status')) === 'done');
      expect(await rebuild.locator('.result').textContent()).toMatch(
        /^Hard rebuild: scanned 1 file, indexed 1 asset, 0 errors\. Took \d+(\.\d)? m?s\.$/,
      );
      expect(await jobs()).toEqual(
        expect.arrayContaining([
          { kind: 'rebuild', mode: 'hard' },
          { kind: 'verify', mode: null },
        ]),
      );
      // Nothing on the page reads like JSON.
      expect(await page.locator('.jobs').textContent()).not.toMatch(/[{}"]/);
      await screenshot(page, 'console-jobs-results');
      expect(world.outside).toEqual([]);
    },
    BROWSER_TIMEOUT_MS,
  );
});
