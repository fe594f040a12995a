import { describeInBrowser } from '@svc/testing/browser';
import type { Page } from 'playwright-core';
import sharp from 'sharp';
import { ingestFile, type Ingested } from './asset-helpers.js';
import {
  gridHashes,
  screenshot,
  startConsoleWorld,
  waitForGrid,
  type ConsoleWorld,
} from './console-harness.js';

const BROWSER_TIMEOUT_MS = 90_000;
/** UTC+14: a photo taken late on 4 May in Europe was taken on 5 May here. */
const ZONE = 'Pacific/Kiritimati';

/** A JPEG whose EXIF says when it was taken. */
function photo(taken: string, offset: string): Promise<Buffer> {
  return sharp({ create: { width: 90, height: 60, channels: 3, background: '#3a6' } })
    .jpeg()
    .withExif({ IFD2: { DateTimeOriginal: taken, OffsetTimeOriginal: offset } })
    .toBuffer();
}

/** The heading the console must write for this time, in the page's zone and locale. */
function dayLabel(ms: number): string {
  return new Date(ms).toLocaleDateString('en-US', {
    timeZone: ZONE,
    weekday: 'short',
    year: 'numeric',
    month: 'short',
    day: 'numeric',
  });
}

describeInBrowser()('the console: a timeline by date taken, with sizes (issue 42)', () => {
  let world: ConsoleWorld;
  let page: Page;
  const by: Record<string, Ingested & { timestamp: number }> = {};

  beforeAll(async () => {
    world = await startConsoleWorld('console_timeline');
    const fixtures: [string, Buffer][] = [
      // 3.3 MiB of text, no date taken: on the timeline at its ingest time.
      ['big.txt', Buffer.alloc(3 * 1024 * 1024 + 300 * 1024, 'a')],
      ['evening.jpg', await photo('2019:05:04 23:30:00', '+02:00')],
      ['morning.jpg', await photo('2019:05:04 09:00:00', '+02:00')],
      ['noon.jpg', await photo('2019:05:04 11:00:00', '+02:00')],
      ['small.txt', Buffer.from('x'.repeat(1536))],
    ];
    for (const [name, content] of fixtures) {
      const ingested = await ingestFile(world.t.app, content, name, { human_file_name: name });
      const row = await world.t.index.db
        .selectFrom('asset')
        .select('timestamp')
        .where('hash', '=', ingested.hash)
        .executeTakeFirstOrThrow();
      by[name] = { ...ingested, timestamp: Number(row.timestamp) };
    }
    page = (await world.newPage({ timezoneId: ZONE, locale: 'en-US' })).page;
    await page.goto('/console/');
    await waitForGrid(page, 5);
  }, BROWSER_TIMEOUT_MS);
  afterAll(async () => {
    await world?.close();
  }, BROWSER_TIMEOUT_MS);

  /** Every cell's day line, in grid order ('' for a cell that opens no day). */
  function headings(): Promise<string[]> {
    return page.evaluate<string[]>(
      "[...document.querySelectorAll('.grid .cell[data-hash]')].map((c) => c.querySelector('h3.day').textContent)",
    );
  }

  it(
    'orders by the date taken, else the ingest time, each day opening once with its heading',
    async () => {
      // The photos came between the two texts, yet sit after both: they were taken in 2019.
      const order = ['small.txt', 'big.txt', 'evening.jpg', 'noon.jpg', 'morning.jpg'];
      expect(await gridHashes(page)).toEqual(order.map((n) => by[n]!.hash));
      expect(world.apiRequests).toContain('/api/v1/can/0/search?sort=taken&limit=200');
      const today = dayLabel(by['small.txt']!.timestamp);
      const bigDay = dayLabel(by['big.txt']!.timestamp);
      expect(await headings()).toEqual([
        today,
        // Stored moments before: the same day, unless midnight passed in between.
        bigDay === today ? '' : bigDay,
        // 23:30 at +02:00 is 11:30 on 5 May in Kiritimati; 11:00 and 09:00 are 23:00 and
        // 21:00 on 4 May there: one day, one heading.
        'Sun, May 5, 2019',
        'Sat, May 4, 2019',
        '',
      ]);
      expect(today).not.toBe('Sat, May 4, 2019');
      // Headings for people and assistive technology, each day's once; the empty line of a
      // cell that opens no day is hidden from the latter.
      expect(await page.getByRole('heading', { name: 'Sat, May 4, 2019' }).count()).toBe(1);
      const shown = await page.locator('.grid h3.day:not([aria-hidden])').allTextContents();
      expect(new Set(shown).size).toBe(shown.length);
      await screenshot(page, 'console-timeline');
    },
    BROWSER_TIMEOUT_MS,
  );

  it(
    'shows each size in human units',
    async () => {
      const sizes = await page.evaluate<Record<string, string>>(
        "Object.fromEntries([...document.querySelectorAll('.grid .cell[data-hash]')].map((c) => [c.querySelector('.name').textContent, c.querySelector('.size').textContent]))",
      );
      const rows = await world.t.index.db
        .selectFrom('asset')
        .select(['human_filename', 'size'])
        .execute();
      const photoBytes = Number(rows.find((r) => r.human_filename === 'morning.jpg')!.size);
      expect(photoBytes).toBeLessThan(1024);
      expect(sizes).toEqual({
        'noon.jpg': `${Number(rows.find((r) => r.human_filename === 'noon.jpg')!.size)} B`,
        'small.txt': '1.5 KiB',
        'morning.jpg': `${photoBytes} B`,
        'evening.jpg': `${Number(rows.find((r) => r.human_filename === 'evening.jpg')!.size)} B`,
        'big.txt': '3.3 MiB',
      });
    },
    BROWSER_TIMEOUT_MS,
  );

  it(
    'puts an old photo uploaded now in its place on the timeline, without a reload',
    async () => {
      await page.locator('#live[data-state="open"]').waitFor();
      await page.evaluate("document.body.dataset.testMark = 'kept'");
      // Taken on 4 May 2019 between morning and noon (22:00 in Kiritimati), and in 2018.
      for (const [name, taken, offset] of [
        ['late.jpg', '2019:05:04 10:00:00', '+02:00'],
        ['older.jpg', '2018:01:10 12:00:00', '+00:00'],
      ] as const) {
        by[name] = {
          ...(await ingestFile(world.t.app, await photo(taken, offset), name, {
            human_file_name: name,
          })),
          timestamp: Date.now(),
        };
      }
      await waitForGrid(page, 7);
      const order = [
        'small.txt',
        'big.txt',
        'evening.jpg',
        'noon.jpg',
        'late.jpg',
        'morning.jpg',
        'older.jpg',
      ];
      expect(await gridHashes(page)).toEqual(order.map((n) => by[n]!.hash));
      const lines = await headings();
      expect(lines.slice(2)).toEqual([
        'Sun, May 5, 2019',
        'Sat, May 4, 2019',
        '',
        '',
        dayLabel(Date.UTC(2018, 0, 10, 12)),
      ]);
      const shown = await page.locator('.grid h3.day:not([aria-hidden])').allTextContents();
      expect(new Set(shown).size).toBe(shown.length);
      expect(await page.evaluate("document.body.dataset.testMark === 'kept'")).toBe(true);
    },
    BROWSER_TIMEOUT_MS,
  );
});
