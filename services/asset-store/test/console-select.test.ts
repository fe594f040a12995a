import { unzipSync } from 'fflate';
import fs from 'node:fs';
import { describeInBrowser } from '@svc/testing/browser';
import type { Page } from 'playwright-core';
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

const png = (r: number, width = 400) => solidPng(width, 300, { r, g: 120, b: 90 });

/** A second of silence as a WAV file (PCM, 8 kHz, 8 bit, mono). */
function wav(): Buffer {
  const samples = 8000;
  const head = Buffer.alloc(44);
  head.write('RIFF', 0);
  head.writeUInt32LE(36 + samples, 4);
  head.write('WAVEfmt ', 8);
  head.writeUInt32LE(16, 16);
  head.writeUInt16LE(1, 20);
  head.writeUInt16LE(1, 22);
  head.writeUInt32LE(8000, 24);
  head.writeUInt32LE(8000, 28);
  head.writeUInt16LE(1, 32);
  head.writeUInt16LE(8, 34);
  head.write('data', 36);
  head.writeUInt32LE(samples, 40);
  return Buffer.concat([head, Buffer.alloc(samples, 128)]);
}

/** A one-page PDF saying "Hello". */
function pdf(): Buffer {
  const objects = [
    '<< /Type /Catalog /Pages 2 0 R >>',
    '<< /Type /Pages /Kids [3 0 R] /Count 1 >>',
    '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 200 100] /Contents 4 0 R /Resources << /Font << /F1 5 0 R >> >> >>',
    '<< /Length 40 >>\nstream\nBT /F1 24 Tf 20 40 Td (Hello) Tj ET\nendstream',
    '<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>',
  ];
  let out = '%PDF-1.4\n';
  const offsets: number[] = [];
  objects.forEach((body, i) => {
    offsets.push(out.length);
    out += `${i + 1} 0 obj\n${body}\nendobj\n`;
  });
  const xref = out.length;
  out += `xref\n0 ${objects.length + 1}\n0000000000 65535 f \n`;
  for (const o of offsets) out += `${String(o).padStart(10, '0')} 00000 n \n`;
  out += `trailer\n<< /Size ${objects.length + 1} /Root 1 0 R >>\nstartxref\n${xref}\n%%EOF\n`;
  return Buffer.from(out, 'latin1');
}

describeInBrowser()('the console: selection, batch actions, zip download and the viewer', () => {
  let world: ConsoleWorld;
  let page: Page;
  /** Ingested in this order; the grid shows them newest first. */
  const assets: (Ingested & { name: string; content: Buffer })[] = [];
  const shown = () => assets.map((a) => a.hash).reverse();
  const cell = (i: number) => page.locator(`.cell[data-hash="${shown()[i]}"]`);

  beforeAll(async () => {
    world = await startConsoleWorld('console_select');
    const fixtures: [string, Buffer, Record<string, string>][] = [
      ['talk.pdf', pdf(), { mime_type: 'application/pdf' }],
      ['silence.wav', wav(), { mime_type: 'audio/wav' }],
      ['red.png', await png(220), { tags: 'colour', human_readable_path: 'colours/warm' }],
      ['green.png', await png(30), { tags: 'colour' }],
      ['blue.png', await png(60, 800), { tags: 'colour,cool' }],
    ];
    for (const [name, content, fields] of fixtures) {
      const ingested = await ingestFile(world.t.app, content, name, {
        human_file_name: name,
        ...fields,
      });
      assets.push({ ...ingested, name, content });
    }
    page = (await world.newPage()).page;
  }, BROWSER_TIMEOUT_MS);
  afterAll(async () => {
    await world?.close();
  }, BROWSER_TIMEOUT_MS);

  it(
    'selects by click, shift-click, ctrl-click and all on the page; Escape clears',
    async () => {
      await page.goto('/console/');
      await waitForGrid(page, assets.length);
      expect(await gridHashes(page)).toEqual(shown());
      const bar = page.getByRole('toolbar', { name: 'Selection' });
      expect(await bar.isVisible()).toBe(false);
      await cell(0).getByRole('checkbox').click();
      await bar.getByText('1 selected').waitFor();
      await cell(2)
        .getByRole('checkbox')
        .click({ modifiers: ['Shift'] });
      await bar.getByText('3 selected').waitFor();
      await cell(4).click({ modifiers: ['Control'] });
      await bar.getByText('4 selected').waitFor();
      const selected = await page.evaluate<string[]>(
        '[...document.querySelectorAll(\'.cell[aria-selected="true"]\')].map((c) => c.dataset.hash)',
      );
      expect(selected).toEqual([0, 1, 2, 4].map((i) => shown()[i]));
      await screenshot(page, 'console-selection');
      await bar.getByRole('button', { name: 'Select all on this page', exact: true }).click();
      await bar.getByText(`${assets.length} selected`).waitFor();
      await page.locator('.grid').focus();
      await page.keyboard.press('Escape');
      await until(async () => !(await bar.isVisible()));
      // From the keyboard: Space picks the focused cell.
      await page.keyboard.press('ArrowRight');
      await page.keyboard.press('Space');
      await bar.getByText('1 selected').waitFor();
      expect(await cell(1).getAttribute('aria-selected')).toBe('true');
      await bar.getByRole('button', { name: 'Clear selection', exact: true }).click();
      await until(async () => !(await bar.isVisible()));
    },
    BROWSER_TIMEOUT_MS,
  );

  it(
    'tags and untags the selected assets, keeping their other tags',
    async () => {
      const bar = page.getByRole('toolbar', { name: 'Selection' });
      await cell(0).getByRole('checkbox').click();
      await cell(1).getByRole('checkbox').click();
      await bar.getByRole('button', { name: 'Tag…', exact: true }).click();
      const ask = page.getByRole('dialog', { name: 'Add tags to the selected assets' });
      await ask.getByLabel('Tags (comma-separated)').fill('trip, 2026');
      await ask.getByRole('button', { name: 'Add tags' }).click();
      await page.locator('#selection-status', { hasText: 'Tagged 2 of 2.' }).waitFor();
      const tagsOf = async (i: number) =>
        (await findAssetByHash(world.t.index.db, shown()[i]!))?.tags;
      expect(await tagsOf(0)).toEqual(['colour', 'cool', 'trip', '2026']);
      expect(await tagsOf(1)).toEqual(['colour', 'trip', '2026']);
      await waitForGrid(page, assets.length);
      await cell(0).getByRole('checkbox').click();
      await cell(1).getByRole('checkbox').click();
      await bar.getByRole('button', { name: 'Untag…', exact: true }).click();
      const untag = page.getByRole('dialog', { name: 'Remove tags from the selected assets' });
      await untag.getByLabel('Tags (comma-separated)').fill('trip,colour');
      await untag.getByRole('button', { name: 'Remove tags' }).click();
      await page.locator('#selection-status', { hasText: 'Untagged 2 of 2.' }).waitFor();
      expect(await tagsOf(0)).toEqual(['cool', '2026']);
      expect(await tagsOf(1)).toEqual(['2026']);
      await waitForGrid(page, assets.length);
    },
    BROWSER_TIMEOUT_MS,
  );

  it(
    'moves the selected assets to the trash and restores them',
    async () => {
      const bar = page.getByRole('toolbar', { name: 'Selection' });
      const [a, b] = [shown()[3]!, shown()[4]!];
      await cell(3).getByRole('checkbox').click();
      await cell(4).getByRole('checkbox').click();
      await bar.getByRole('button', { name: 'Move to trash', exact: true }).click();
      await page.locator('#selection-status', { hasText: 'Moved to trash 2 of 2.' }).waitFor();
      await waitForGrid(page, assets.length - 2);
      for (const hash of [a, b])
        expect((await findAssetByHash(world.t.index.db, hash))?.is_trashed).toBe(true);
      await page.goto('/console/?include_trashed=true');
      await waitForGrid(page, assets.length);
      await page.locator(`.cell[data-hash="${a}"]`).getByRole('checkbox').click();
      await page.locator(`.cell[data-hash="${b}"]`).getByRole('checkbox').click();
      await bar.getByRole('button', { name: 'Restore', exact: true }).click();
      await page.locator('#selection-status', { hasText: 'Restored 2 of 2.' }).waitFor();
      for (const hash of [a, b])
        expect((await findAssetByHash(world.t.index.db, hash))?.is_trashed).toBe(false);
    },
    BROWSER_TIMEOUT_MS,
  );

  it(
    'downloads the selected assets as one zip made in the browser, folders kept',
    async () => {
      await page.goto('/console/');
      await waitForGrid(page, assets.length);
      const bar = page.getByRole('toolbar', { name: 'Selection' });
      for (const i of [1, 2, 3]) await cell(i).getByRole('checkbox').click();
      const [download] = await Promise.all([
        page.waitForEvent('download'),
        bar.getByRole('button', { name: 'Download zip', exact: true }).click(),
      ]);
      expect(download.suggestedFilename()).toBe('assets-3.zip');
      const files = unzipSync(new Uint8Array(fs.readFileSync(await download.path())));
      const byName = (n: string) => assets.find((x) => x.name === n)!.content;
      expect(Object.keys(files).sort()).toEqual([
        'colours/warm/red.png',
        'green.png',
        'silence.wav',
      ]);
      for (const [name, bytes] of Object.entries(files))
        expect(Buffer.from(bytes).equals(byName(name.split('/').pop()!))).toBe(true);
      // Only the page's own origin: the zip is made here, not fetched from anywhere.
      expect(world.outside).toEqual([]);
      await bar.getByRole('button', { name: 'Clear selection', exact: true }).click();
    },
    BROWSER_TIMEOUT_MS,
  );

  it(
    'shows an asset full screen: previous and next by keys, zoom, the browser’s players',
    async () => {
      await cell(0).click();
      const dialog = page.getByRole('dialog', { name: 'blue.png' });
      await dialog.waitFor();
      const image = dialog.locator('.media[data-kind="image"] img');
      await until(
        async () =>
          (await image.evaluate((i) => (i as { naturalWidth: number }).naturalWidth)) === 800,
      );
      const box = await dialog.boundingBox();
      expect([box?.width, box?.height]).toEqual([1280, 800]);
      expect(await dialog.locator('.position').textContent()).toBe(`1 of ${assets.length}`);
      await dialog.getByRole('button', { name: 'Zoom in' }).click();
      expect(await dialog.locator('.media').getAttribute('data-zoom')).toBe('1.5');
      await page.keyboard.press('+');
      expect(await dialog.locator('.media').getAttribute('data-zoom')).toBe('2.25');
      await page.keyboard.press('0');
      expect(await dialog.locator('.media').getAttribute('data-zoom')).toBe('1');
      await page.keyboard.press('ArrowRight');
      await page.waitForURL(`**/console/asset/${shown()[1]}`);
      await page.getByRole('dialog', { name: 'green.png' }).waitFor();
      await page.keyboard.press('ArrowRight');
      await page.keyboard.press('ArrowRight');
      await page.waitForURL(`**/console/asset/${shown()[3]}`);
      const audioDialog = page.getByRole('dialog', { name: 'silence.wav' });
      const audio = audioDialog.locator('audio[controls]');
      await until(
        async () => (await audio.evaluate((a) => (a as { readyState: number }).readyState)) >= 1,
      );
      expect(await audio.evaluate((a) => (a as { duration: number }).duration)).toBeCloseTo(1, 1);
      const pdfUrl = `/api/v1/can/0/asset/${shown()[4]}?disposition=inline`;
      const pdfAnswer = page.waitForResponse((r) => r.url().endsWith(pdfUrl));
      await page.keyboard.press('ArrowRight');
      await page.waitForURL(`**/console/asset/${shown()[4]}`);
      const pdfDialog = page.getByRole('dialog', { name: 'talk.pdf' });
      const frame = pdfDialog.locator('iframe[title="talk.pdf"]');
      expect(await frame.getAttribute('src')).toBe(pdfUrl);
      // Sandboxed by the answer's own header (the frame has no sandbox attribute, which the
      // PDF viewer refuses), shown inline rather than saved.
      const answer = await pdfAnswer;
      expect(answer.status()).toBe(200);
      const headers = await answer.allHeaders();
      expect(headers['content-security-policy']).toBe('sandbox');
      expect(headers['content-disposition']).toBe('inline; filename="talk.pdf"');
      expect(await frame.getAttribute('sandbox')).toBeNull();
      // The browser's PDF viewer took it (a frame of another type would show it as text).
      await until(() =>
        Promise.resolve(page.frames().some((f) => f.url().startsWith('chrome-extension://'))),
      );
      expect(await pdfDialog.getByRole('button', { name: 'Next ›' }).isDisabled()).toBe(true);
      await screenshot(page, 'console-viewer-pdf');
      await page.keyboard.press('ArrowLeft');
      await page.waitForURL(`**/console/asset/${shown()[3]}`);
      await page.keyboard.press('Escape');
      await page.waitForURL('**/console/');
      expect(world.outside).toEqual([]);
    },
    BROWSER_TIMEOUT_MS,
  );
});
