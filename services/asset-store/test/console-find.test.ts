import { createHash } from 'node:crypto';
import { describeInBrowser } from '@svc/testing/browser';
import type { Page } from 'playwright-core';
import request from 'supertest';
import { findAssetByHash } from '../src/assets/asset.repository.js';
import { type Ingested, ingestFile, solidPng } from './asset-helpers.js';
import {
  gridHashes,
  screenshot,
  startConsoleWorld,
  until,
  waitForGrid,
  type ConsoleWorld,
} from './console-harness.js';

const BROWSER_TIMEOUT_MS = 90_000;
const API = '/api/v1/can/0';

const png = (r: number) => solidPng(120, 80, { r, g: 90, b: 60 });

describeInBrowser()('the console: search, folders, duplicates and upload without copies', () => {
  let world: ConsoleWorld;
  let page: Page;
  const by: Record<string, Ingested> = {};
  let beach: Buffer;

  beforeAll(async () => {
    world = await startConsoleWorld('console_find');
    beach = await png(200);
    const fixtures: [string, Buffer | string, Record<string, string>][] = [
      ['beach.png', beach, { human_readable_path: 'photos/2026/summer', tags: 'holiday' }],
      [
        'city.png',
        await png(40),
        { human_readable_path: 'photos/2025', description: 'Night lights' },
      ],
      ['notes.txt', 'meeting notes', { human_readable_path: 'docs', mime_type: 'text/plain' }],
      ['copy-of-beach.png', beach, { human_readable_path: 'photos-old' }],
      ['beach-again.png', beach, {}],
    ];
    for (const [name, content, fields] of fixtures) {
      by[name] = await ingestFile(world.t.app, content, name, { human_file_name: name, ...fields });
    }
    page = (await world.newPage()).page;
    await page.goto('/console/');
  }, BROWSER_TIMEOUT_MS);
  afterAll(async () => {
    await world?.close();
  }, BROWSER_TIMEOUT_MS);

  it(
    'browses folders by human_path with breadcrumbs and counts',
    async () => {
      await waitForGrid(page, 5);
      const sub = page.getByRole('list', { name: 'Subfolders' });
      await page.locator('nav.folders[data-loaded]').waitFor();
      expect(await sub.locator('a').allTextContents()).toEqual([
        '▸ docs (1)',
        '▸ photos (2)',
        '▸ photos-old (1)',
      ]);
      // The arrow is decoration (aria-hidden): the link's name is the folder and its count.
      await sub.getByRole('link', { name: 'photos (2)', exact: true }).click();
      await page.waitForURL('**/console/?path=photos');
      await waitForGrid(page, 2);
      expect((await gridHashes(page)).sort()).toEqual(
        [by['beach.png']!.hash, by['city.png']!.hash].sort(),
      );
      await page.locator('nav.folders[data-loaded]').waitFor();
      expect(await sub.locator('a').allTextContents()).toEqual(['▸ 2025 (1)', '▸ 2026 (1)']);
      await sub.getByRole('link', { name: /2026/ }).click();
      await page.waitForURL('**/console/?path=photos%2F2026');
      await waitForGrid(page, 1);
      const crumbs = page.locator('.crumbs li');
      expect(await crumbs.allTextContents()).toEqual(['All folders', 'photos', '2026']);
      expect(await crumbs.last().locator('[aria-current="page"]').count()).toBe(1);
      await page.locator('nav.folders[data-loaded]').waitFor();
      expect(await sub.locator('a').allTextContents()).toEqual(['▸ summer (1)']);
      await screenshot(page, 'console-folders');
      await crumbs.getByRole('link', { name: 'photos' }).click();
      await page.waitForURL('**/console/?path=photos');
      await waitForGrid(page, 2);
      await crumbs.getByRole('link', { name: 'All folders' }).click();
      await page.waitForURL('**/console/');
      await waitForGrid(page, 5);
    },
    BROWSER_TIMEOUT_MS,
  );

  it(
    'searches with q, a MIME family and a folder together, kept in the URL',
    async () => {
      await page.getByLabel('Search', { exact: true }).fill('BEACH');
      await page.getByRole('button', { name: 'Search', exact: true }).click();
      await page.waitForURL('**/console/?q=BEACH');
      await waitForGrid(page, 3);
      // A description matches too, case-insensitively.
      await page.getByLabel('Search', { exact: true }).fill('night');
      await page.getByRole('button', { name: 'Search', exact: true }).click();
      await waitForGrid(page, 1);
      expect(await gridHashes(page)).toEqual([by['city.png']!.hash]);
      // A family: every image, not the text file.
      await page.getByLabel('Search', { exact: true }).fill('');
      await page.getByLabel('Type').selectOption({ label: 'Images' });
      await page.getByRole('button', { name: 'Search', exact: true }).click();
      await page.waitForURL('**/console/?mime_type=image%2F*');
      await waitForGrid(page, 4);
      expect(world.apiRequests).toContain(`${API}/search?mime_type=image%2F*&sort=taken&limit=200`);
      // All three at once.
      await page.getByLabel('Search', { exact: true }).fill('beach');
      await page.getByLabel('Folder', { exact: true }).fill('photos');
      await page.getByRole('button', { name: 'Search', exact: true }).click();
      await waitForGrid(page, 1);
      expect(await gridHashes(page)).toEqual([by['beach.png']!.hash]);
      await page.getByRole('button', { name: 'Clear' }).click();
      await waitForGrid(page, 5);
    },
    BROWSER_TIMEOUT_MS,
  );

  it(
    'groups assets by content in the Duplicates view, where a copy can be trashed',
    async () => {
      await page.getByRole('link', { name: 'Duplicates' }).click();
      await page.waitForURL('**/console/duplicates');
      const sha = createHash('sha256').update(beach).digest('hex');
      const group = page.locator(`.dup-group[data-sha256="${sha}"]`);
      await group.waitFor();
      expect(await page.locator('.dup-group').count()).toBe(1);
      expect(await group.locator('h3').textContent()).toMatch(/^3 copies/);
      const hashes = await page.evaluate<string[]>(
        "[...document.querySelectorAll('.dup-items li')].map((li) => li.dataset.hash)",
      );
      // Newest first.
      expect(hashes).toEqual(
        [by['beach-again.png']!, by['copy-of-beach.png']!, by['beach.png']!].map((a) => a.hash),
      );
      await page.locator('.dup-items img').first().waitFor();
      await screenshot(page, 'console-duplicates');
      await group
        .locator(`li[data-hash="${by['beach-again.png']!.hash}"]`)
        .getByRole('button', { name: /^Move beach-again\.png/ })
        .click();
      await group.locator(`li[data-hash="${by['beach-again.png']!.hash}"][data-trashed]`).waitFor();
      expect(
        (await findAssetByHash(world.t.index.db, by['beach-again.png']!.hash))?.is_trashed,
      ).toBe(true);
      const api = await request(world.t.app).get(`${API}/duplicates`);
      expect(api.status).toBe(200);
      const groups = (api.body as { data: { groups: { sha256: string; count: number }[] } }).data
        .groups;
      expect(groups.map((g) => [g.sha256, g.count])).toEqual([[sha, 2]]);
    },
    BROWSER_TIMEOUT_MS,
  );

  it(
    'skips an upload whose content is stored, saying so, unless asked to store it anyway',
    async () => {
      await page.getByRole('link', { name: 'Assets' }).click();
      await waitForGrid(page, 4);
      const before = await world.t.index.db.selectFrom('asset').select('hash').execute();
      await page.locator('#upload-files').setInputFiles([
        { name: 'beach-upload.png', mimeType: 'image/png', buffer: beach },
        { name: 'fresh.txt', mimeType: 'text/plain', buffer: Buffer.from('never seen before') },
      ]);
      const skipped = page.locator(
        '.uploads li[data-file="beach-upload.png"][data-state="skipped"]',
      );
      await skipped.waitFor();
      // The newest visible copy is named.
      expect(await skipped.getAttribute('data-hash')).toBe(by['copy-of-beach.png']!.hash);
      expect(await skipped.locator('.state').textContent()).toBe(
        'already stored, skipped: see the stored copy',
      );
      await page.locator('.uploads li[data-file="fresh.txt"][data-state="done"]').waitFor();
      await page
        .locator('#upload-status', { hasText: '1 of 1 uploaded. 1 already stored, skipped' })
        .waitFor();
      const after = await world.t.index.db.selectFrom('asset').select('hash').execute();
      expect(after.length).toBe(before.length + 1);
      // Asked to: stored again.
      await page.getByLabel('Store duplicates anyway').check();
      await page
        .locator('#upload-files')
        .setInputFiles([{ name: 'beach-upload.png', mimeType: 'image/png', buffer: beach }]);
      await page.locator('.uploads li[data-file="beach-upload.png"][data-state="done"]').waitFor();
      await until(
        async () =>
          (await world.t.index.db.selectFrom('asset').select('hash').execute()).length ===
          before.length + 2,
      );
      expect(world.outside).toEqual([]);
    },
    BROWSER_TIMEOUT_MS,
  );
});
