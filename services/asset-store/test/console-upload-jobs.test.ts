import fs from 'node:fs';
import path from 'node:path';
import type { Page } from 'playwright-core';
import request from 'supertest';
import { findAssetByHash } from '../src/assets/asset.repository.js';
import { expectedHash } from './asset-helpers.js';
import {
  gridHashes,
  screenshot,
  startConsoleWorld,
  until,
  waitForGrid,
  type ConsoleWorld,
} from './console-harness.js';
import { storeSparseAsset } from './factories.js';
import { JOBS, type JobBody } from './job-helpers.js';

const BROWSER_TIMEOUT_MS = 120_000;
const ADMIN = 'console-jobs-admin-token';
/**
 * Sparse files of this size make the verify read and hash for a few seconds (several of
 * the view's polls), without disk space and without slowing the product down.
 */
const LARGE_BYTES = 512 * 2 ** 20;
const LARGE_FILES = 4;

/** The text of an element once it has settled on `expected` (or the last seen, on timeout). */
async function textOnceIs(page: Page, selector: string, expected: string): Promise<string> {
  await until(async () => (await page.locator(selector).textContent()) === expected).catch(
    () => undefined,
  );
  return (await page.locator(selector).textContent()) ?? '';
}

/** Drops files on the assets view as a person dragging them from a file manager would. */
async function dropFiles(page: Page, files: { name: string; type: string; text: string }[]) {
  // A string: the test's own TypeScript has no DOM types.
  const transfer = await page.evaluateHandle(`(() => {
    const dt = new DataTransfer();
    for (const f of ${JSON.stringify(files)}) dt.items.add(new File([f.text], f.name, { type: f.type }));
    return dt;
  })()`);
  await page.dispatchEvent('.assets', 'dragenter', { dataTransfer: transfer });
  await page.dispatchEvent('.assets', 'dragover', { dataTransfer: transfer });
  await page.dispatchEvent('.assets', 'drop', { dataTransfer: transfer });
}

describe('the console: upload by drop (tus) and live jobs', () => {
  let world: ConsoleWorld;
  let page: Page;

  beforeAll(async () => {
    world = await startConsoleWorld('console_upload_jobs', { admin_token: ADMIN });
    page = (await world.newPage()).page;
  }, BROWSER_TIMEOUT_MS);
  afterAll(async () => {
    await world?.close();
  }, BROWSER_TIMEOUT_MS);

  it(
    'uploads dropped files through tus, each with its own progress, and shows them in the grid',
    async () => {
      await page.goto('/console/');
      await waitForGrid(page, 0);
      await page.getByLabel('Tags for uploads').fill('dropped, test');
      const files = [
        { name: 'first.txt', type: 'text/plain', text: 'first dropped file' },
        { name: 'second.json', type: 'application/json', text: '{"n": 2}' },
      ];
      await dropFiles(page, files);
      for (const f of files) {
        await page.locator(`.uploads li[data-file="${f.name}"][data-state="done"]`).waitFor();
      }
      // The batch's outcome has a live region of its own, which the grid's refresh after it
      // (announcing the new count in the page's region) leaves alone.
      expect(await textOnceIs(page, '#upload-status', '2 of 2 uploaded.')).toBe('2 of 2 uploaded.');
      // Every bar is full, and each upload learnt its asset's hash from Asset-Hash.
      const items = await page.evaluate<{ file: string; hash?: string; full: boolean }[]>(
        `[...document.querySelectorAll('.uploads li')].map((li) => {
          const bar = li.querySelector('progress');
          return { file: li.dataset.file, hash: li.dataset.hash, full: bar.value === bar.max };
        })`,
      );
      expect(items.map((i) => [i.file, i.full])).toEqual([
        ['second.json', true],
        ['first.txt', true],
      ]);
      for (const item of items) {
        const f = files.find((x) => x.name === item.file)!;
        const row = await findAssetByHash(world.t.index.db, item.hash!);
        expect(row).toMatchObject({
          mime_type: f.type,
          tags: ['dropped', 'test'],
          human_filename: f.name,
        });
        expect(item.hash).toBe(expectedHash(f.text, Number(row!.timestamp)));
        const stored = fs.readFileSync(path.join(world.t.storageRoot, row!.path), 'utf8');
        expect(stored).toBe(f.text);
      }
      expect(world.apiRequests.some((u) => u.startsWith('/api/v1/can/0/uploads'))).toBe(true);
      await waitForGrid(page, 2);
      expect((await gridHashes(page)).sort()).toEqual(items.map((i) => i.hash).sort());
      expect(await textOnceIs(page, '#status', '2 assets')).toBe('2 assets');
      expect(await page.locator('#upload-status').textContent()).toBe('2 of 2 uploaded.');
      await screenshot(page, 'console-upload');
    },
    BROWSER_TIMEOUT_MS,
  );

  it(
    'uploads files chosen with the button too',
    async () => {
      await page.locator('#upload-files').setInputFiles({
        name: 'chosen.txt',
        mimeType: 'text/plain',
        buffer: Buffer.from('chosen, not dropped'),
      });
      await page.locator('.uploads li[data-file="chosen.txt"][data-state="done"]').waitFor();
      expect(await textOnceIs(page, '#upload-status', '1 of 1 uploaded.')).toBe('1 of 1 uploaded.');
      await waitForGrid(page, 3);
    },
    BROWSER_TIMEOUT_MS,
  );

  it(
    'shows an upload whose grid page was still on its way when the feed told of it',
    async () => {
      // The upload's end reloads the grid from its first page; held here, the feed's event
      // for the same asset refreshes the grid meanwhile, which drops that page's answer.
      const held: (() => Promise<void>)[] = [];
      let holding = true;
      await page.route('**/api/v1/can/0/search?*', (route) =>
        holding ? held.push(() => route.continue()) : route.continue(),
      );
      try {
        await page.locator('#upload-files').setInputFiles({
          name: 'raced.txt',
          mimeType: 'text/plain',
          buffer: Buffer.from('uploaded while the grid was loading'),
        });
        await page.locator('.uploads li[data-file="raced.txt"][data-state="done"]').waitFor();
        await until(() => Promise.resolve(held.length > 0));
        // The feed's refresh comes 200 ms after its event.
        await new Promise((resolve) => setTimeout(resolve, 1_000));
      } finally {
        holding = false;
        await Promise.all(held.map((release) => release()));
        await page.unroute('**/api/v1/can/0/search?*');
      }
      await waitForGrid(page, 4);
      expect(await textOnceIs(page, '#status', '4 assets')).toBe('4 assets');
    },
    BROWSER_TIMEOUT_MS,
  );

  it(
    'asks for the admin token once, starts a verify and shows its progress moving to done',
    async () => {
      for (let i = 0; i < LARGE_FILES; i++) await storeSparseAsset(world.t, LARGE_BYTES);
      // The four files uploaded above, and the large ones.
      const total = 4 + LARGE_FILES;
      await page.getByRole('link', { name: 'Jobs' }).click();
      await page.waitForURL('**/console/jobs');
      const dialog = page.getByRole('dialog', { name: 'Token needed' });
      await dialog.getByLabel('Admin token').fill(ADMIN);
      await dialog.getByRole('button', { name: 'Continue' }).click();
      await page.getByText('No jobs yet.').waitFor();

      await page.getByRole('button', { name: 'Verify all files' }).click();
      const job = page.locator('li[data-kind="verify"]').first();
      await job.waitFor();
      // Sample the bar while it runs: it must show at least two values between empty and full.
      const bar = job.locator('progress');
      const moving = new Set<number>();
      const deadline = Date.now() + BROWSER_TIMEOUT_MS;
      while ((await job.getAttribute('data-status')) === 'running' && Date.now() < deadline) {
        const value = Number(await bar.getAttribute('value'));
        if (value > 0 && value < Number(await bar.getAttribute('max'))) moving.add(value);
        await page.waitForTimeout(100);
      }
      expect(await job.getAttribute('data-status')).toBe('done');
      expect(moving.size).toBeGreaterThanOrEqual(2);
      expect(await job.getAttribute('data-done')).toBe(String(total));
      const id = await job.getAttribute('data-job');
      const row = await world.t.index.db
        .selectFrom('job')
        .select(['kind', 'status', 'done', 'total', 'error'])
        .where('id', '=', id!)
        .executeTakeFirst();
      expect(row).toEqual({ kind: 'verify', status: 'done', done: total, total, error: null });
      await screenshot(page, 'console-jobs');

      const listed = await request(world.t.app).get(JOBS).set('Authorization', `Bearer ${ADMIN}`);
      expect(listed.status).toBe(200);
      expect((listed.body as { data: JobBody[] }).data.map((j) => [j.id, j.status])).toEqual([
        [id, 'done'],
      ]);
      // Typed once: a reload of the jobs view asks nothing.
      await page.reload();
      await job.waitFor();
      expect(await dialog.isVisible()).toBe(false);
      expect(world.outside).toEqual([]);
    },
    BROWSER_TIMEOUT_MS * 2,
  );

  it(
    'cancels a running rebuild',
    async () => {
      // A file copied in without attributes: the rebuild hashes all of it, so it is still
      // running when the click lands.
      await storeSparseAsset(world.t, 2 * LARGE_BYTES, { withoutAttributes: true });
      await page.getByRole('button', { name: 'Hard rebuild' }).click();
      await page
        .getByRole('dialog', { name: 'Hard rebuild?' })
        .getByRole('button', { name: 'Start hard rebuild' })
        .click();
      const job = page.locator('li[data-kind="rebuild"]').first();
      const cancel = job.getByRole('button', { name: 'Cancel rebuild' });
      await cancel.waitFor();
      const answered = page.waitForResponse(
        (res) => res.request().method() === 'DELETE' && res.url().includes(`${JOBS}/`),
      );
      await cancel.click();
      const res = await answered;
      expect(res.status()).toBe(200);
      const body = (await res.json()) as { data: JobBody };
      expect(body.data).toMatchObject({ kind: 'rebuild', status: 'cancelled', error: null });
      // The view shows it once its next poll lands: wait for that, never read once.
      await until(async () => (await job.getAttribute('data-status')) !== 'running');
      expect(await job.getAttribute('data-status')).toBe('cancelled');
      expect(await job.getAttribute('data-job')).toBe(body.data.id);
      expect(await job.getByRole('button', { name: 'Cancel rebuild' }).count()).toBe(0);
      const row = await world.t.index.db
        .selectFrom('job')
        .select(['kind', 'mode', 'status'])
        .where('id', '=', body.data.id)
        .executeTakeFirst();
      expect(row).toEqual({ kind: 'rebuild', mode: 'hard', status: 'cancelled' });
    },
    BROWSER_TIMEOUT_MS,
  );
});
