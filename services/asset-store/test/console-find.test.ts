import { createHash } from 'node:crypto';
import { describeInBrowser } from '@svc/testing/browser';
import type { Page } from 'playwright-core';
import sharp from 'sharp';
import request from 'supertest';
import { findAssetByHash } from '../src/assets/asset.repository.js';
import { ingestFile, type Ingested } from './asset-helpers.js';
import {
  screenshot,
  startConsoleWorld,
  until,
  waitForGrid,
  type ConsoleWorld,
} from './console-harness.js';

const BROWSER_TIMEOUT_MS = 90_000;
const API = '/api/v1/can/0';

function png(r: number): Promise<Buffer> {
  return sharp({ create: { width: 120, height: 80, channels: 3, background: { r, g: 90, b: 60 } } })
    .png()
    .toBuffer();
}

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
