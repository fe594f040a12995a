import fs from 'node:fs';
import { describeInBrowser } from '@svc/testing/browser';
import type { Page } from 'playwright-core';
import request from 'supertest';
import { findAssetByHash } from '../src/assets/asset.repository.js';
import { type Ingested, ingestFile, solidPng, xattrsOf } from './asset-helpers.js';
import {
  type ConsoleWorld,
  corruptThroughVerifier,
  gridHashes,
  screenshot,
  startConsoleWorld,
  until,
  waitForGrid,
} from './console-harness.js';

const BROWSER_TIMEOUT_MS = 90_000;
const ADMIN = 'console-admin-token';

/** A small PNG of one colour. */
const png = (r: number, g: number, b: number) => solidPng(320, 200, { r, g, b });

describeInBrowser()('the console in Chromium', () => {
  let world: ConsoleWorld;
  let page: Page;
  /** Ingested in this order; the grid shows them newest first. */
  const assets: (Ingested & { name: string })[] = [];
  const newestFirst = () => assets.map((a) => a.hash).reverse();

  beforeAll(async () => {
    world = await startConsoleWorld('console_ui', { admin_token: ADMIN });
    const fixtures: [string, Buffer | string, string][] = [
      ['harbour.png', await png(30, 90, 160), 'holiday,sea'],
      ['notes.txt', 'shopping list', 'home'],
      ['sunset.png', await png(220, 120, 40), 'holiday'],
      ['receipt.json', '{"total": 12}', 'home,paper'],
      ['forest.png', await png(40, 140, 60), 'walk'],
    ];
    for (const [name, content, tags] of fixtures) {
      const ingested = await ingestFile(world.t.app, content, name, {
        tags,
        human_file_name: name,
        application: 'console-test',
      });
      assets.push({ ...ingested, name });
    }
    page = (await world.newPage()).page;
  }, BROWSER_TIMEOUT_MS);
  afterAll(async () => {
    await world?.close();
  }, BROWSER_TIMEOUT_MS);

  it(
    'shows every asset as a thumbnail, newest first',
    async () => {
      await page.goto('/console/');
      await waitForGrid(page, assets.length);
      expect(await gridHashes(page)).toEqual(newestFirst());
      await until(
        async () => (await page.locator('.grid .cell:not([data-state="ready"])').count()) === 0,
      );
      // Each thumbnail is a real image the browser decoded.
      const widths = await page.evaluate<number[]>(
        "[...document.querySelectorAll('.grid .cell img')].map((i) => i.naturalWidth)",
      );
      expect(widths).toHaveLength(assets.length);
      for (const w of widths) expect(w).toBeGreaterThan(0);
      expect(await page.locator('#status').textContent()).toBe(`${assets.length} assets`);
      await screenshot(page, 'console-grid', 'console-grid');
    },
    BROWSER_TIMEOUT_MS,
  );

  it(
    'searches by tag, the filter kept in the URL',
    async () => {
      await page.getByLabel('Tags', { exact: true }).fill('holiday');
      await page.getByRole('button', { name: 'Search' }).click();
      await page.waitForURL('**/console/?tags=holiday');
      await waitForGrid(page, 2);
      const holiday = assets.filter((a) => ['harbour.png', 'sunset.png'].includes(a.name));
      expect(await gridHashes(page)).toEqual(holiday.map((a) => a.hash).reverse());
      expect(world.apiRequests).toContain('/api/v1/can/0/search?tags=holiday&sort=taken&limit=200');
      // Two filters together: every one applies.
      await page.getByLabel('Tags', { exact: true }).fill('home, paper');
      await page.getByRole('button', { name: 'Search' }).click();
      await waitForGrid(page, 1);
      expect(await gridHashes(page)).toEqual([assets[3]!.hash]);
      await page.getByRole('button', { name: 'Clear' }).click();
      await page.waitForURL('**/console/');
      await waitForGrid(page, assets.length);
    },
    BROWSER_TIMEOUT_MS,
  );

  it(
    'edits tags and description in the asset view, on the index and on the file',
    async () => {
      const target = assets[4]!;
      await page.locator(`.cell[data-hash="${target.hash}"]`).click();
      await page.waitForURL(`**/console/asset/${target.hash}`);
      const dialog = page.getByRole('dialog', { name: 'forest.png' });
      await dialog.waitFor();
      await dialog.getByLabel('Tags (comma-separated)').fill('walk, trees ,  autumn,trees');
      await dialog.getByLabel('Description', { exact: true }).fill('A walk in the forest');
      await dialog.getByRole('button', { name: 'Save' }).click();
      await page.locator('#status', { hasText: 'Saved.' }).waitFor();
      const row = await findAssetByHash(world.t.index.db, target.hash);
      expect(row).toMatchObject({
        tags: ['walk', 'trees', 'autumn'],
        description: 'A walk in the forest',
      });
      const xattrs = await xattrsOf(world.t, target.filename);
      expect(JSON.parse(xattrs.tags!)).toEqual(['walk', 'trees', 'autumn']);
      expect(xattrs.description).toBe('A walk in the forest');
      await expect(dialog.locator('dt:text-is("Tags") + dd').textContent()).resolves.toBe(
        'walk, trees, autumn',
      );
      await dialog.getByRole('button', { name: 'Close' }).click();
      await page.waitForURL('**/console/');
      // The grid knows the new tags: searching finds it.
      await page.getByLabel('Tags', { exact: true }).fill('autumn');
      await page.getByRole('button', { name: 'Search' }).click();
      await waitForGrid(page, 1);
      expect(await gridHashes(page)).toEqual([target.hash]);
      await page.getByRole('button', { name: 'Clear' }).click();
      await waitForGrid(page, assets.length);
    },
    BROWSER_TIMEOUT_MS,
  );

  it(
    'moves an asset to the trash and restores it from the trash view',
    async () => {
      const target = assets[1]!;
      await page.locator(`.cell[data-hash="${target.hash}"]`).click();
      const dialog = page.getByRole('dialog', { name: 'notes.txt' });
      await dialog.getByRole('button', { name: 'Move to trash' }).click();
      await dialog.getByRole('button', { name: 'Restore' }).waitFor();
      expect((await findAssetByHash(world.t.index.db, target.hash))?.is_trashed).toBe(true);
      await dialog.getByRole('button', { name: 'Close' }).click();
      await waitForGrid(page, assets.length - 1);
      expect(await gridHashes(page)).toEqual(newestFirst().filter((h) => h !== target.hash));

      await page.getByRole('link', { name: 'Trash' }).click();
      await page.waitForURL('**/console/trash');
      const row = page.locator(`tr[data-hash="${target.hash}"]`);
      await row.waitFor();
      expect(await page.locator('.trash tbody tr').count()).toBe(1);
      await screenshot(page, 'console-trash');
      await row.getByRole('button', { name: 'Restore notes.txt' }).click();
      await row.waitFor({ state: 'detached' });
      expect((await findAssetByHash(world.t.index.db, target.hash))?.is_trashed).toBe(false);
      expect(await page.locator('#status').textContent()).toBe('Restored notes.txt.');

      await page.getByRole('link', { name: 'Assets' }).click();
      await waitForGrid(page, assets.length);
      expect(await gridHashes(page)).toEqual(newestFirst());
    },
    BROWSER_TIMEOUT_MS,
  );

  it(
    'shows a corrupted asset as such, in the grid and in its view, without a download',
    async () => {
      const target = assets[2]!;
      expect(await corruptThroughVerifier(world, target.filename, ADMIN)).toMatchObject({
        checked: assets.length,
        corrupted: 1,
        missing: 0,
      });

      await page.goto('/console/');
      await waitForGrid(page, assets.length - 1);
      await page.getByLabel('Include corrupted').check();
      await page.getByRole('button', { name: 'Search' }).click();
      await page.waitForURL('**/console/?include_corrupted=true');
      await waitForGrid(page, assets.length);
      const cell = page.locator(`.cell[data-hash="${target.hash}"]`);
      await expect(cell.getAttribute('aria-label')).resolves.toBe('sunset.png, corrupted');
      await expect(cell.locator('.badge').textContent()).resolves.toBe('Corrupted');
      await cell.locator('.no-preview', { hasText: 'Corrupted' }).waitFor();
      await cell.click();
      const dialog = page.getByRole('dialog', { name: 'sunset.png' });
      await dialog.getByRole('alert').filter({ hasText: 'Corrupted' }).waitFor();
      expect(await dialog.locator('.corrupted').textContent()).toBe(
        'Corrupted: the stored file no longer matches its hash (or is missing). It cannot be downloaded; restore it from a backup and run a verify.',
      );
      expect(await dialog.getByRole('link', { name: 'Download' }).count()).toBe(0);
      await screenshot(page, 'console-corrupted', 'console-asset-corrupted');
      await page.keyboard.press('Escape');
      await page.waitForURL('**/console/?include_corrupted=true');
    },
    BROWSER_TIMEOUT_MS,
  );

  it(
    'downloads a good asset from its view',
    async () => {
      const target = assets[3]!;
      await page.locator(`.cell[data-hash="${target.hash}"]`).click();
      const dialog = page.getByRole('dialog', { name: 'receipt.json' });
      const [download] = await Promise.all([
        page.waitForEvent('download'),
        dialog.getByRole('link', { name: 'Download' }).click(),
      ]);
      expect(download.suggestedFilename()).toBe('receipt.json');
      const saved = await download.path();
      expect(fs.readFileSync(saved, 'utf8')).toBe('{"total": 12}');
      await dialog.getByRole('button', { name: 'Close' }).click();
      // Close goes back in history, which lands after the click: wait for it, or the next
      // navigation is cut off by it.
      await page.waitForURL('**/console/?include_corrupted=true');
      await dialog.waitFor({ state: 'hidden' });
    },
    BROWSER_TIMEOUT_MS,
  );

  it(
    'is usable from the keyboard: arrows move through the grid, Enter opens, Escape closes',
    async () => {
      await page.goto('/console/');
      await waitForGrid(page, assets.length - 1);
      await page.locator('.grid').focus();
      await page.keyboard.press('ArrowRight');
      await page.keyboard.press('ArrowRight');
      await page.keyboard.press('ArrowLeft');
      const focused = await page.evaluate<string>('document.activeElement.dataset.hash');
      const shown = await gridHashes(page);
      expect(focused).toBe(shown[1]);
      await page.keyboard.press('Enter');
      await page.waitForURL(`**/console/asset/${shown[1]}`);
      await page.getByRole('dialog').waitFor();
      await page.keyboard.press('Escape');
      await page.waitForURL('**/console/');
      await page.getByRole('dialog').waitFor({ state: 'hidden' });
    },
    BROWSER_TIMEOUT_MS,
  );

  it('made no request to anything but the service itself', () => {
    expect(world.apiRequests.length).toBeGreaterThan(10);
    expect(world.outside).toEqual([]);
  });
});

describeInBrowser()('the console with api_token set', () => {
  let world: ConsoleWorld;
  const TOKEN = 'console-api-token';
  let stored: Ingested;

  beforeAll(async () => {
    world = await startConsoleWorld('console_token', { api_token: TOKEN });
    const res = await request(world.t.app)
      .post('/api/v1/can/0/ingest')
      .set('Authorization', `Bearer ${TOKEN}`)
      .field('human_file_name', 'secret.png')
      .attach('file', await png(200, 0, 0), 'secret.png');
    stored = (res.body as { data: Ingested }).data;
  }, BROWSER_TIMEOUT_MS);
  afterAll(async () => {
    await world?.close();
  }, BROWSER_TIMEOUT_MS);

  it(
    'asks for the token, says when one is refused, then shows the assets',
    async () => {
      const { page } = await world.newPage();
      await page.goto('/console/');
      const dialog = page.getByRole('dialog', { name: 'Token needed' });
      await dialog.getByLabel('API token').fill('wrong');
      await dialog.getByRole('button', { name: 'Continue' }).click();
      await dialog.getByText('That token was refused; try again.').waitFor();
      await dialog.getByLabel('API token').fill(TOKEN);
      await dialog.getByRole('button', { name: 'Continue' }).click();
      await waitForGrid(page, 1);
      expect(await gridHashes(page)).toEqual([stored.hash]);
      // The thumbnail came through fetch with the token: an <img> alone would get 401.
      await page.locator('.cell[data-state="ready"] img').waitFor();
      // Once per session: a reload asks nothing.
      await page.reload();
      await waitForGrid(page, 1);
      expect(await dialog.isVisible()).toBe(false);
      expect(world.outside).toEqual([]);
    },
    BROWSER_TIMEOUT_MS,
  );

  it(
    'follows the change feed with the token (an EventSource could not send it); a PDF offers Download only',
    async () => {
      const { page } = await world.newPage();
      const streamAuth: (string | undefined)[] = [];
      page.on('request', (req) => {
        if (req.url().includes('/changes/stream')) streamAuth.push(req.headers().authorization);
      });
      await page.goto('/console/');
      const dialog = page.getByRole('dialog', { name: 'Token needed' });
      await dialog.getByLabel('API token').fill(TOKEN);
      await dialog.getByRole('button', { name: 'Continue' }).click();
      await waitForGrid(page, 1);
      await page.locator('#live[data-state="open"]').waitFor();
      expect(streamAuth.at(-1)).toBe(`Bearer ${TOKEN}`);
      const res = await request(world.t.app)
        .post('/api/v1/can/0/ingest')
        .set('Authorization', `Bearer ${TOKEN}`)
        .field('human_file_name', 'slides.pdf')
        .field('mime_type', 'application/pdf')
        .attach('file', Buffer.from('%PDF-1.4\n%%EOF\n'), 'slides.pdf');
      expect(res.status).toBe(200);
      const pdf = (res.body as { data: Ingested }).data;
      await waitForGrid(page, 2);
      expect(await gridHashes(page)).toEqual([pdf.hash, stored.hash]);
      // A frame cannot send the token, and nothing unsandboxed is shown.
      await page.locator(`.cell[data-hash="${pdf.hash}"]`).click();
      const viewer = page.getByRole('dialog', { name: 'slides.pdf' });
      expect(await viewer.locator('.media[data-kind="pdf"] .no-preview').textContent()).toBe(
        'No preview while an API token is needed: download it.',
      );
      expect(await viewer.locator('iframe').count()).toBe(0);
      await viewer.getByRole('button', { name: 'Download' }).waitFor();
      expect(world.outside).toEqual([]);
    },
    BROWSER_TIMEOUT_MS,
  );
});
