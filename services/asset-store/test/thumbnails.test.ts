import sharp from 'sharp';
import request from 'supertest';
import type { App } from '../src/app.js';
import {
  SharpRenderer,
  sharpRenderer,
  type ThumbnailRenderer,
} from '../src/thumbnails/thumbnail.renderer.js';
import {
  cachedThumbnailSizes,
  cachedThumbnails,
  clearCachedThumbnails,
  removeContentBehindItsBack,
  tmpFiles,
} from './asset-helpers.js';
import { storeAsset } from './factories.js';
import { createTestApp, variantApp, type TestApp } from './test-app.js';

let t: TestApp;
let renders = 0;
/** sharp, counted: how many resizes really ran. */
const countingRenderer: ThumbnailRenderer = {
  render: (file, box) => {
    renders++;
    return sharpRenderer.render(file, box);
  },
};

function appWith(
  overrides: Record<string, unknown> = {},
  renderer: ThumbnailRenderer = countingRenderer,
): App {
  return variantApp(t, { config: overrides, thumbnailRenderer: renderer }).app;
}

let app: App;
beforeAll(async () => {
  t = await createTestApp('thumbnails');
  app = appWith();
}, 60_000);
afterAll(async () => {
  await t.close();
});
beforeEach(() => {
  renders = 0;
});

const thumbUrl = (hash: string, w: number | string, h: number | string) =>
  `/api/v1/can/0/asset/${hash}/thumb/${w}/${h}`;

function solid(width: number, height: number) {
  return sharp({ create: { width, height, channels: 3, background: '#3366cc' } });
}

function thumb(a: App, hash: string, w: number | string, h: number | string) {
  return request(a)
    .get(thumbUrl(hash, w, h))
    .buffer(true)
    .parse((res, cb) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => cb(null, Buffer.concat(chunks)));
    });
}

async function jpegSize(
  body: unknown,
): Promise<{ width?: number; height?: number; format?: string }> {
  const meta = await sharp(body as Buffer).metadata();
  return { width: meta.width, height: meta.height, format: meta.format };
}

describe('image thumbnails', () => {
  it('fits a JPEG into the box with its aspect kept', async () => {
    const { row } = await storeAsset(t, await solid(400, 200).jpeg().toBuffer(), {
      mime_type: 'image/jpeg',
      ext: 'jpg',
    });
    const res = await thumb(app, row.hash, 100, 100).expect(200);
    expect(res.headers['content-type']).toBe('image/jpeg');
    expect(await jpegSize(res.body)).toEqual({ width: 100, height: 50, format: 'jpeg' });
    const tall = await thumb(app, row.hash, 300, 30).expect(200);
    expect(await jpegSize(tall.body)).toEqual({ width: 60, height: 30, format: 'jpeg' });
  });

  it('never enlarges a small image', async () => {
    const { row } = await storeAsset(t, await solid(40, 20).png().toBuffer(), {
      mime_type: 'image/png',
      ext: 'png',
    });
    const res = await thumb(app, row.hash, 1000, 1000).expect(200);
    expect(await jpegSize(res.body)).toEqual({ width: 40, height: 20, format: 'jpeg' });
  });

  it('applies the EXIF orientation before fitting', async () => {
    // Stored 200x100 landscape, tagged "rotate 90°": viewers show it 100x200 portrait.
    const rotated = await solid(200, 100).jpeg().withMetadata({ orientation: 6 }).toBuffer();
    const { row } = await storeAsset(t, rotated, { mime_type: 'image/jpeg', ext: 'jpg' });
    const res = await thumb(app, row.hash, 100, 100).expect(200);
    expect(await jpegSize(res.body)).toEqual({ width: 50, height: 100, format: 'jpeg' });
  });

  it('flattens transparency on white', async () => {
    const clear = await sharp({
      create: { width: 8, height: 8, channels: 4, background: { r: 0, g: 0, b: 0, alpha: 0 } },
    })
      .png()
      .toBuffer();
    const { row } = await storeAsset(t, clear, { mime_type: 'image/png', ext: 'png' });
    const res = await thumb(app, row.hash, 8, 8).expect(200);
    const { data } = await sharp(res.body as Buffer)
      .raw()
      .toBuffer({ resolveWithObject: true });
    expect(Math.min(...data)).toBeGreaterThanOrEqual(250);
  });

  it.each([
    ['WebP', 'image/webp', 'webp', () => solid(300, 150).webp().toBuffer()],
    ['GIF', 'image/gif', 'gif', () => solid(300, 150).gif().toBuffer()],
    ['TIFF', 'image/tiff', 'tiff', () => solid(300, 150).tiff().toBuffer()],
    [
      'SVG',
      'image/svg+xml',
      'svg',
      () =>
        Promise.resolve(
          Buffer.from(
            '<svg xmlns="http://www.w3.org/2000/svg" width="300" height="150"><rect width="300" height="150" fill="red"/></svg>',
          ),
        ),
    ],
  ])('renders %s sources as JPEG', async (_name, mime, ext, make) => {
    const { row } = await storeAsset(t, await make(), { mime_type: mime, ext });
    const res = await thumb(app, row.hash, 60, 60).expect(200);
    expect(res.headers['content-type']).toBe('image/jpeg');
    expect(await jpegSize(res.body)).toEqual({ width: 60, height: 30, format: 'jpeg' });
  });

  it('serves a trashed asset’s thumbnail too', async () => {
    const { row } = await storeAsset(t, await solid(20, 20).png().toBuffer(), {
      mime_type: 'image/png',
      ext: 'png',
      is_trashed: true,
    });
    const res = await thumb(app, row.hash, 10, 10).expect(200);
    expect(await jpegSize(res.body)).toEqual({ width: 10, height: 10, format: 'jpeg' });
  });
});

describe('thumbnail caching headers', () => {
  it('gives a strong ETag, immutable caching and nosniff, and answers a match with 304', async () => {
    const { row } = await storeAsset(t, await solid(80, 40).png().toBuffer(), {
      mime_type: 'image/png',
      ext: 'png',
    });
    const res = await thumb(app, row.hash, 20, 20).expect(200);
    const etag = res.headers['etag']!;
    expect(etag).toMatch(/^"[\w-]{32}"$/);
    expect(res.headers['cache-control']).toBe('public, max-age=31536000, immutable');
    expect(res.headers['x-content-type-options']).toBe('nosniff');
    const again = await request(app)
      .get(thumbUrl(row.hash, 20, 20))
      .set('If-None-Match', etag)
      .set('Cache-Control', 'no-cache')
      .expect(304);
    expect(again.headers['etag']).toBe(etag);
    expect(again.text).toBe('');
    await request(app)
      .get(thumbUrl(row.hash, 20, 20))
      .set('If-None-Match', '"x"')
      .expect(200);
    const other = await thumb(app, row.hash, 10, 10).expect(200);
    expect(other.headers['etag']).not.toBe(etag);
  });

  it('tags a placeholder by its bytes too', async () => {
    const { row } = await storeAsset(t, 'text', { mime_type: 'text/plain', ext: 'txt' });
    const res = await thumb(app, row.hash, 30, 30).expect(200);
    expect(res.headers['x-content-type-options']).toBe('nosniff');
    await request(app)
      .get(thumbUrl(row.hash, 30, 30))
      .set('If-None-Match', res.headers['etag']!)
      .expect(304);
  });
});

describe('placeholders', () => {
  it('draws an SVG naming the extension for a non-image, sized to fit the box', async () => {
    const { row } = await storeAsset(t, '{"a": 1}', { mime_type: 'application/json', ext: 'json' });
    const res = await thumb(app, row.hash, 120, 80).expect(200);
    expect(res.headers['content-type']).toMatch(/^image\/svg\+xml/);
    const svg = (res.body as Buffer).toString('utf8');
    expect(svg).toMatch(/^<svg [^>]*width="80" height="80"/);
    expect(svg).toContain('>json</text>');
    expect(renders).toBe(0);
  });

  it('draws a placeholder for an image that cannot be decoded', async () => {
    const { row } = await storeAsset(t, 'not really a png', { mime_type: 'image/png', ext: 'png' });
    const res = await thumb(app, row.hash, 50, 100).expect(200);
    const svg = (res.body as Buffer).toString('utf8');
    expect(svg).toMatch(/^<svg [^>]*width="50" height="50"/);
    expect(svg).toContain('>png</text>');
  });

  it('draws a placeholder for an image beyond the pixel limit', async () => {
    const bomb =
      '<svg xmlns="http://www.w3.org/2000/svg" width="30000" height="30000"><rect width="10" height="10"/></svg>';
    const { row } = await storeAsset(t, bomb, { mime_type: 'image/svg+xml', ext: 'svg' });
    const res = await thumb(app, row.hash, 64, 64).expect(200);
    expect(res.headers['content-type']).toMatch(/^image\/svg\+xml/);
    expect((res.body as Buffer).toString('utf8')).toContain('>svg</text>');
  });
});

/** One large blur over a 4000 x 4000 drawing: about 14 s of work for libvips at this size. */
const slowSvg =
  '<svg xmlns="http://www.w3.org/2000/svg" width="4000" height="4000">' +
  '<filter id="f"><feGaussianBlur stdDeviation="1000"/></filter>' +
  '<rect width="4000" height="4000" filter="url(#f)"/></svg>';

describe('a render that takes too long', () => {
  const slow = slowSvg;

  it('stops, and the file gets a placeholder', async () => {
    const { row } = await storeAsset(t, slow, { mime_type: 'image/svg+xml', ext: 'svg' });
    const impatient = appWith({ enable_thumbnail_cache: false }, new SharpRenderer(1));
    const res = await thumb(impatient, row.hash, 4096, 4096).expect(200);
    expect(res.headers['content-type']).toMatch(/^image\/svg\+xml/);
    expect((res.body as Buffer).toString('utf8')).toContain('>svg</text>');
  }, 60_000);

  it('is killed when libvips does not stop it: SVGs render in a process of their own', async () => {
    // Stored as PNG: the content, not the stored type, decides where it renders.
    const { row } = await storeAsset(t, slow, { mime_type: 'image/png', ext: 'png' });
    // No libvips timeout at all; only the kill, after 500 ms, can end this render early.
    const unstoppable = appWith({ enable_thumbnail_cache: false }, new SharpRenderer(0, 500));
    const started = performance.now();
    const res = await thumb(unstoppable, row.hash, 4096, 4096).expect(200);
    expect(performance.now() - started).toBeLessThan(5000);
    expect(res.headers['content-type']).toMatch(/^image\/svg\+xml/);
    expect((res.body as Buffer).toString('utf8')).toContain('>png</text>');
  }, 60_000);
});

describe('the thumbnail cache', () => {
  it('writes .thumbs/<hash>_<w>x<h>.jpg and serves it without resizing again', async () => {
    const { row } = await storeAsset(t, await solid(300, 300).jpeg().toBuffer(), {
      mime_type: 'image/jpeg',
      ext: 'jpg',
    });
    const first = await thumb(app, row.hash, 64, 32).expect(200);
    expect((await cachedThumbnails(t)).get(`${row.hash}_64x32.jpg`)).toEqual(first.body);
    const second = await thumb(app, row.hash, 64, 32).expect(200);
    expect(second.body).toEqual(first.body);
    expect(renders).toBe(1);
    expect(tmpFiles(t)).toEqual([]);
  });

  it('writes nothing when the cache is disabled', async () => {
    const uncached = appWith({ enable_thumbnail_cache: false });
    const { row } = await storeAsset(t, await solid(30, 30).jpeg().toBuffer(), {
      mime_type: 'image/jpeg',
      ext: 'jpg',
    });
    await thumb(uncached, row.hash, 10, 10).expect(200);
    await thumb(uncached, row.hash, 10, 10).expect(200);
    expect((await cachedThumbnails(t)).has(`${row.hash}_10x10.jpg`)).toBe(false);
    expect(renders).toBe(2);
  });

  it('is removed, every size of the asset, when the asset is purged', async () => {
    const admin = appWith({ admin_token: 'admin' });
    const jpeg = await solid(60, 60).jpeg().toBuffer();
    const purged = await storeAsset(t, jpeg, { mime_type: 'image/jpeg', ext: 'jpg' });
    const kept = await storeAsset(t, jpeg, { mime_type: 'image/jpeg', ext: 'jpg' });
    await thumb(admin, purged.row.hash, 20, 20).expect(200);
    await thumb(admin, purged.row.hash, 30, 30).expect(200);
    const keptThumb = await thumb(admin, kept.row.hash, 20, 20).expect(200);
    const ofPurged = async () =>
      [...(await cachedThumbnailSizes(t)).keys()]
        .filter((n) => n.startsWith(purged.row.hash))
        .sort();
    expect(await ofPurged()).toEqual([
      `${purged.row.hash}_20x20.jpg`,
      `${purged.row.hash}_30x30.jpg`,
    ]);
    const res = await request(admin)
      .delete(`/api/v1/can/0/admin/asset/${purged.row.hash}`)
      .set('Authorization', 'Bearer admin')
      .expect(200);
    expect(res.body).toEqual({ status: 'success', data: 'purged' });
    expect(await ofPurged()).toEqual([]);
    expect((await cachedThumbnails(t)).get(`${kept.row.hash}_20x20.jpg`)).toEqual(keptThumb.body);
  });

  it('makes one resize for 100 identical requests at once', async () => {
    const { row } = await storeAsset(t, await solid(800, 600).jpeg().toBuffer(), {
      mime_type: 'image/jpeg',
      ext: 'jpg',
    });
    const all = await Promise.all(Array.from({ length: 100 }, () => thumb(app, row.hash, 80, 80)));
    expect(all.map((r) => r.status)).toEqual(Array(100).fill(200));
    expect(renders).toBe(1);
    expect(await jpegSize(all[99]!.body)).toEqual({ width: 80, height: 60, format: 'jpeg' });
  });
});

describe('thumbnail errors', () => {
  it.each([
    ['0', '10', 'invalid max_width: expected an integer from 1 to 4096'],
    ['4097', '10', 'invalid max_width: expected an integer from 1 to 4096'],
    ['1.5', '10', 'invalid max_width: expected an integer from 1 to 4096'],
    ['wide', '10', 'invalid max_width: expected an integer from 1 to 4096'],
    ['10', '0', 'invalid max_height: expected an integer from 1 to 4096'],
    ['10', '99999', 'invalid max_height: expected an integer from 1 to 4096'],
  ])('refuses a %sx%s box with 400', async (w, h, message) => {
    const res = await request(app)
      .get(thumbUrl('a'.repeat(64), w, h))
      .expect(400);
    expect(res.body).toEqual({ status: 'error', error: message });
  });

  it('accepts the bounds 1 and 4096', async () => {
    const { row } = await storeAsset(t, await solid(50, 50).png().toBuffer(), {
      mime_type: 'image/png',
      ext: 'png',
    });
    const res = await thumb(app, row.hash, 1, 4096).expect(200);
    expect(await jpegSize(res.body)).toEqual({ width: 1, height: 1, format: 'jpeg' });
  });

  it('reads a side written with leading zeros as its integer, as list and search do', async () => {
    const { row } = await storeAsset(t, await solid(400, 200).png().toBuffer(), {
      mime_type: 'image/png',
      ext: 'png',
    });
    const res = await thumb(app, row.hash, '00040', '0000100').expect(200);
    expect(await jpegSize(res.body)).toEqual({ width: 40, height: 20, format: 'jpeg' });
    expect((await cachedThumbnails(t)).has(`${row.hash}_40x100.jpg`)).toBe(true);
    const over = await request(app)
      .get(thumbUrl(row.hash, '04097', 10))
      .expect(400);
    expect(over.body).toEqual({
      status: 'error',
      error: 'invalid max_width: expected an integer from 1 to 4096',
    });
  });

  it('refuses a malformed hash with 400 and an unknown one with 404', async () => {
    const bad = await request(app)
      .get(thumbUrl('xyz', 10, 10))
      .expect(400);
    expect(bad.body).toEqual({
      status: 'error',
      error: 'invalid hash: expected 64 hexadecimal characters',
    });
    const unknown = await request(app)
      .get(thumbUrl('b'.repeat(64), 10, 10))
      .expect(404);
    expect(unknown.body).toEqual({ status: 'error', error: 'asset not found' });
  });

  it('answers 500 for a corrupted asset and for a missing file', async () => {
    const png = await solid(20, 20).png().toBuffer();
    const corrupted = await storeAsset(t, png, {
      mime_type: 'image/png',
      ext: 'png',
      is_corrupted: true,
    });
    const res = await request(app)
      .get(thumbUrl(corrupted.row.hash, 10, 10))
      .expect(500);
    expect(res.body).toEqual({
      status: 'error',
      error: 'asset is corrupted: content does not match its hash',
    });
    const gone = await storeAsset(t, png, { mime_type: 'image/png', ext: 'png' });
    await removeContentBehindItsBack(t, gone.row.path);
    const missing = await request(app)
      .get(thumbUrl(gone.row.hash, 10, 10))
      .expect(500);
    expect(missing.body).toEqual({
      status: 'error',
      error: 'asset is corrupted: its file is missing',
    });
    const meta = await request(app).get(`/api/v1/can/0/asset/${gone.row.hash}/meta`).expect(200);
    expect((meta.body as { data: { is_corrupted: boolean } }).data.is_corrupted).toBe(true);
  });

  it('answers another method with 405', async () => {
    await request(app)
      .post(thumbUrl('a'.repeat(64), 10, 10))
      .expect(405);
  });
});

describe('the thumbnail cache bound', () => {
  /** Bytes under `.thumbs/` now. */
  async function cachedBytes(): Promise<number> {
    return [...(await cachedThumbnailSizes(t)).values()].reduce((sum, size) => sum + size, 0);
  }

  it('keeps .thumbs within thumbnail_cache_max_bytes, removing the least recently used', async () => {
    await clearCachedThumbnails(t);
    const { row } = await storeAsset(t, await solid(200, 200).jpeg().toBuffer(), {
      mime_type: 'image/jpeg',
      ext: 'jpg',
    });
    const one = (await thumb(app, row.hash, 40, 40).expect(200)).body as Buffer;
    // Room for about four thumbnails of this size.
    const bounded = appWith({ thumbnail_cache_max_bytes: one.length * 4 + 100 });
    const file = (w: number) => `${row.hash}_${w}x40.jpg`;
    for (let w = 30; w < 60; w++) {
      await thumb(bounded, row.hash, w, 40).expect(200);
      // The first box stays in use, so it is never the least recently used.
      await thumb(bounded, row.hash, 30, 40).expect(200);
      await new Promise((resolve) => setImmediate(resolve));
      expect(await cachedBytes()).toBeLessThanOrEqual(one.length * 4 + 100 + 2_000);
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(await cachedBytes()).toBeLessThanOrEqual(one.length * 4 + 100);
    const cached = await cachedThumbnailSizes(t);
    expect(cached.has(file(30))).toBe(true);
    expect(cached.has(file(59))).toBe(true);
    expect(cached.has(file(31))).toBe(false);
    // Ninety requests and thirty listings of the cache: on S3, under a loaded CI, past 30 s.
  }, 120_000);
});
