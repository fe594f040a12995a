import { describeInBrowser } from '@svc/testing/browser';
import type { Page } from 'playwright-core';
import request from 'supertest';
import { findAssetByHash } from '../src/assets/asset.repository.js';
import { type Ingested, ingestFile, solidPng } from './asset-helpers.js';
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
const ADMIN = 'console-live-admin';

const png = (r: number) => solidPng(120, 80, { r, g: 80, b: 90 });

/** Whether the page is still the one loaded (a reload would drop the mark). */
function notReloaded(page: Page): Promise<boolean> {
  return page.evaluate<boolean>("document.body.dataset.testMark === 'kept'");
}

describeInBrowser()('the console follows the change feed (issue 45)', () => {
  let world: ConsoleWorld;
  let page: Page;
  /** The values of Last-Event-ID the page sent, one per stream request. */
  const streamRequests: (string | undefined)[] = [];
  const assets: Ingested[] = [];

  beforeAll(async () => {
    world = await startConsoleWorld('console_live', { admin_token: ADMIN });
    for (const [i, name] of ['first.png', 'second.png'].entries()) {
      assets.push(
        await ingestFile(world.t.app, await png(40 * i), name, { human_file_name: name }),
      );
    }
    page = (await world.newPage()).page;
    page.on('request', (req) => {
      if (req.url().includes('/api/v1/can/0/changes/stream')) {
        streamRequests.push(req.headers()['last-event-id']);
      }
    });
    await page.goto('/console/');
    await waitForGrid(page, 2);
    await page.locator('#live[data-state="open"]').waitFor();
    await page.evaluate("document.body.dataset.testMark = 'kept'");
  }, BROWSER_TIMEOUT_MS);
  afterAll(async () => {
    await world?.close();
  }, BROWSER_TIMEOUT_MS);

  it(
    'shows a new asset as soon as it is stored, without a reload',
    async () => {
      expect(await page.locator('#live').textContent()).toBe('Live');
      const fresh = await ingestFile(world.t.app, await png(200), 'new.png', {
        human_file_name: 'new.png',
      });
      assets.push(fresh);
      await waitForGrid(page, 3);
      expect(await gridHashes(page)).toEqual(assets.map((a) => a.hash).reverse());
      await page.locator(`.cell[data-hash="${fresh.hash}"][data-state="ready"] img`).waitFor();
      expect(await page.locator('#status').textContent()).toBe('3 assets');
      expect(await notReloaded(page)).toBe(true);
    },
    BROWSER_TIMEOUT_MS,
  );

  it(
    'shows the corrupted badge once the verifier flags an asset',
    async () => {
      const target = assets[0]!;
      expect(await corruptThroughVerifier(world, target.filename, ADMIN)).toMatchObject({
        checked: 3,
      });
      const cell = page.locator(`.cell[data-hash="${target.hash}"]`);
      await cell.locator('.badge.bad', { hasText: 'Corrupted' }).waitFor();
      expect(await cell.getAttribute('aria-label')).toBe('first.png, corrupted');
      expect(await cell.locator('.no-preview').textContent()).toBe('Corrupted');
      await screenshot(page, 'console-live-corrupted');
      expect(await notReloaded(page)).toBe(true);
    },
    BROWSER_TIMEOUT_MS,
  );

  it(
    'reflects trash and restore done in another tab',
    async () => {
      const target = assets[1]!;
      const other = (await world.newPage()).page;
      await other.goto(`/console/asset/${target.hash}`);
      const dialog = other.getByRole('dialog', { name: 'second.png' });
      await dialog.getByRole('button', { name: 'Move to trash' }).click();
      await dialog.getByRole('button', { name: 'Restore' }).waitFor();
      expect((await findAssetByHash(world.t.index.db, target.hash))?.is_trashed).toBe(true);
      // Gone from the first tab's grid (the corrupted one went with the reload of the page).
      await until(async () => !(await gridHashes(page)).includes(target.hash));
      expect(await gridHashes(page)).toEqual([assets[2]!.hash]);

      await other.goto('/console/trash');
      await other.getByRole('button', { name: 'Restore second.png' }).click();
      await until(
        async () => (await findAssetByHash(world.t.index.db, target.hash))?.is_trashed === false,
      );
      await until(async () => (await gridHashes(page)).length === 2);
      expect(await gridHashes(page)).toEqual([assets[2]!.hash, target.hash]);
      expect(await page.locator(`.cell[data-hash="${target.hash}"] .badge`).count()).toBe(0);
      expect(await notReloaded(page)).toBe(true);
      await other.close();
    },
    BROWSER_TIMEOUT_MS,
  );

  it(
    'reconnects after the connection drops and resumes after the last event seen',
    async () => {
      // The first connection started from now.
      expect(streamRequests[0]).toBeUndefined();
      const before = streamRequests.length;
      world.dropConnections();
      await until(async () => (await page.locator('#live').getAttribute('data-state')) !== 'open');
      // Stored while the page is away: the resumed stream brings it.
      const late = await ingestFile(world.t.app, await png(120), 'late.png', {
        human_file_name: 'late.png',
      });
      await page.locator('#live[data-state="open"]').waitFor();
      await page.locator(`.cell[data-hash="${late.hash}"]`).waitFor();
      const resumedWith = streamRequests.slice(before);
      expect(resumedWith.length).toBeGreaterThanOrEqual(1);
      // The first reconnection names the last event the page had (the restore's).
      const changes = await request(world.t.app).get('/api/v1/can/0/changes');
      const events = (changes.body as { data: { events: { id: string; type: string }[] } }).data
        .events;
      const restored = events.findLast((e) => e.type === 'asset.restored')!;
      expect(resumedWith[0]).toBe(restored.id);
      expect(await gridHashes(page)).toEqual([late.hash, assets[2]!.hash, assets[1]!.hash]);
      expect(await notReloaded(page)).toBe(true);
      expect(world.outside).toEqual([]);
    },
    BROWSER_TIMEOUT_MS,
  );

  it(
    'draws the details of the asset on screen again when it changes elsewhere, not over an edit',
    async () => {
      const target = assets[2]!;
      await page.locator(`.cell[data-hash="${target.hash}"]`).click();
      const dialog = page.getByRole('dialog', { name: 'new.png' });
      const inTrash = dialog.locator('dt:text-is("In trash") + dd');
      expect(await inTrash.textContent()).toBe('no');
      const trashed = await request(world.t.app).delete(`/api/v1/can/0/asset/${target.hash}`);
      expect(trashed.status).toBe(200);
      await dialog.getByRole('button', { name: 'Restore' }).waitFor();
      expect(await inTrash.textContent()).toBe('yes');
      // An edit being typed stays as typed: the restore done elsewhere waits for it.
      await dialog.getByLabel('Description', { exact: true }).fill('typed here');
      const restored = await request(world.t.app).post(
        `/api/v1/can/0/asset/${target.hash}/restore`,
      );
      expect(restored.status).toBe(200);
      await until(
        async () =>
          (await findAssetByHash(world.t.index.db, target.hash))?.is_trashed === false &&
          (await page.locator(`.cell[data-hash="${target.hash}"]`).count()) === 1,
      );
      expect(await dialog.getByLabel('Description', { exact: true }).inputValue()).toBe(
        'typed here',
      );
      expect(await inTrash.textContent()).toBe('yes');
      await dialog.getByRole('button', { name: 'Close' }).click();
      await page.waitForURL('**/console/');
      expect(await notReloaded(page)).toBe(true);
    },
    BROWSER_TIMEOUT_MS,
  );

  it(
    'keeps the trash view in step with trash and restore done elsewhere',
    async () => {
      const other = (await world.newPage()).page;
      await other.goto('/console/trash');
      await other.locator('.trash .note', { hasText: 'The trash is empty.' }).waitFor();
      await other.locator('#live[data-state="open"]').waitFor();
      const rows = () =>
        other.evaluate<string[]>(
          "[...document.querySelectorAll('.trash tbody tr')].map((tr) => tr.dataset.hash)",
        );
      const api = `/api/v1/can/0/asset`;
      // The older first, then the newer, which goes above it (newest first).
      expect((await request(world.t.app).delete(`${api}/${assets[1]!.hash}`)).status).toBe(200);
      await other.locator(`tr[data-hash="${assets[1]!.hash}"]`).waitFor();
      expect((await request(world.t.app).delete(`${api}/${assets[2]!.hash}`)).status).toBe(200);
      await until(async () => (await rows()).length === 2);
      expect(await rows()).toEqual([assets[2]!.hash, assets[1]!.hash]);
      expect(await other.locator('.trash .note').textContent()).toBe('End of the trash.');
      const restore = (hash: string) => request(world.t.app).post(`${api}/${hash}/restore`);
      expect((await restore(assets[1]!.hash)).status).toBe(200);
      await until(async () => (await rows()).length === 1);
      expect(await rows()).toEqual([assets[2]!.hash]);
      expect((await restore(assets[2]!.hash)).status).toBe(200);
      await other.locator('.trash .note', { hasText: 'The trash is empty.' }).waitFor();
      expect(await rows()).toEqual([]);
      await other.close();
    },
    BROWSER_TIMEOUT_MS,
  );
});
