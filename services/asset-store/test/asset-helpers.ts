import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { getAttribute, listAttributes } from 'fs-xattr';
import sharp from 'sharp';
import request from 'supertest';
import type { App } from '../src/app.js';
import { encodeAttributes } from '../src/storage/attributes.js';
import { hashBuffer } from '../src/storage/content-hash.js';
import { parseSidecar, sidecarName } from '../src/storage/sidecar-format.js';
import {
  deleteBehindItsBack,
  objectExists,
  putBehindItsBack,
  objectOf,
  objectSizesUnder,
  objectsUnder,
} from './s3-bucket.js';
import type { TestApp } from './test-app.js';

/** A PNG of one colour, `width` × `height` pixels. */
export function solidPng(
  width: number,
  height: number,
  background: { r: number; g: number; b: number },
): Promise<Buffer> {
  return sharp({ create: { width, height, channels: 3, background } })
    .png()
    .toBuffer();
}

/** The ingest answer as tests read it. */
export interface Ingested {
  timestamp: number;
  hash: string;
  filename: string;
}

/** A successful file ingest; fields are sent as form fields. */
export async function ingestFile(
  app: App,
  content: Buffer | string,
  filename = 'file.bin',
  fields: Record<string, string> = {},
): Promise<Ingested> {
  let req = request(app).post('/api/v1/can/0/ingest');
  for (const [k, v] of Object.entries(fields)) req = req.field(k, v);
  const res = await req.attach('file', Buffer.from(content), filename);
  if (res.status !== 200) throw new Error(`ingest failed: ${res.status} ${res.text}`);
  return (res.body as { data: Ingested }).data;
}

/** A successful data ingest. */
export async function ingestData(app: App, body: object): Promise<Ingested> {
  const res = await request(app).post('/api/v1/can/0/ingest/data').send(body);
  if (res.status !== 200) throw new Error(`data ingest failed: ${res.status} ${res.text}`);
  return (res.body as { data: Ingested }).data;
}

/** The hash the service must have computed, recomputed independently. */
export function expectedHash(content: Buffer | string, timestamp: number): string {
  return hashBuffer(Buffer.from(content), timestamp);
}

/** Every asset file in the storage root (dot-folders excluded), by bare name. */
export function storedFiles(t: TestApp): string[] {
  return fs
    .readdirSync(t.storageRoot)
    .filter((n) => !n.startsWith('.'))
    .sort();
}

/**
 * Every asset blob by bare name, where the app keeps them: the storage root's files, or the
 * top-level objects of its bucket (`useS3Blobs`); dot-names excluded either way.
 */
export async function storedAssets(t: TestApp): Promise<string[]> {
  if (!t.bucket) return storedFiles(t);
  const sizes = await objectSizesUnder(t.bucket, '');
  return [...sizes.keys()].filter((k) => !k.startsWith('.') && !k.includes('/')).sort();
}

/**
 * What is left staged: the app's local `.tmp/` (as `tmpFiles`), and on S3 the objects under
 * the bucket's `.tmp/` too.
 */
export async function stagedLeftovers(t: TestApp): Promise<string[]> {
  const local = tmpFiles(t);
  if (!t.bucket) return local;
  return [...local, ...(await objectSizesUnder(t.bucket, '.tmp/')).keys()];
}

/** What is left in the app's staging folder under `.tmp/` (its lock aside). */
export function tmpFiles(t: TestApp): string[] {
  return fs.existsSync(t.storage.layout.tmp)
    ? fs.readdirSync(t.storage.layout.tmp).filter((name) => name !== 'service.lock')
    : [];
}

/**
 * The thumbnail cache as the backend holds it, by name: the files of `.thumbs/` on disk, or
 * the objects under `.thumbs/` in the app's bucket (`useS3Blobs`).
 */
export async function cachedThumbnails(t: TestApp): Promise<Map<string, Buffer>> {
  if (t.bucket) return objectsUnder(t.bucket, '.thumbs/');
  const dir = path.join(t.storageRoot, '.thumbs');
  const names = fs.existsSync(dir) ? fs.readdirSync(dir) : [];
  return new Map(names.map((n) => [n, fs.readFileSync(path.join(dir, n))]));
}

/** The sizes of the cached thumbnails, by name, as `cachedThumbnails` finds them. */
export async function cachedThumbnailSizes(t: TestApp): Promise<Map<string, number>> {
  if (t.bucket) return objectSizesUnder(t.bucket, '.thumbs/');
  const dir = path.join(t.storageRoot, '.thumbs');
  const names = fs.existsSync(dir) ? fs.readdirSync(dir) : [];
  return new Map(names.map((n) => [n, fs.statSync(path.join(dir, n)).size]));
}

/** Empties the thumbnail cache behind the service's back (disk folder or bucket prefix). */
export async function clearCachedThumbnails(t: TestApp): Promise<void> {
  if (t.bucket) await deleteBehindItsBack(t.bucket, '.thumbs/', true);
  else fs.rmSync(path.join(t.storageRoot, '.thumbs'), { recursive: true, force: true });
}

/** Removes an asset's content behind the service's back: its file, or its object. */
export async function removeContentBehindItsBack(t: TestApp, name: string): Promise<void> {
  if (t.bucket) await deleteBehindItsBack(t.bucket, name);
  else fs.rmSync(path.join(t.storageRoot, name));
}

/**
 * Replaces an asset's content behind the service's back: the file's bytes (its xattrs
 * stay), or a new object of that name (S3 has no other way; its metadata goes with it).
 */
export async function replaceContentBehindItsBack(
  t: TestApp,
  name: string,
  content: string | Buffer,
): Promise<void> {
  if (t.bucket) await putBehindItsBack(t.bucket, name, content);
  else {
    const file = path.join(t.storageRoot, name);
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.writeFileSync(file, content);
  }
}

/**
 * Empties the storage behind the service's back, the service's own dot-space included
 * (the embedded index aside): every file and folder of the root, or every object of the
 * bucket.
 */
export async function emptyStorageBehindItsBack(t: TestApp): Promise<void> {
  if (t.bucket) return deleteBehindItsBack(t.bucket, '', true);
  for (const entry of fs.readdirSync(t.storageRoot)) {
    if (entry !== '.index') fs.rmSync(path.join(t.storageRoot, entry), { recursive: true });
  }
  fs.mkdirSync(t.storage.layout.tmp, { recursive: true });
  fs.mkdirSync(path.join(t.storageRoot, '.meta'));
}

/** Removes every asset blob (dot-names kept): the root's files, or the bucket's objects. */
export async function removeAllAssetsBehindItsBack(t: TestApp): Promise<void> {
  if (t.bucket) {
    for (const [key] of await objectSizesUnder(t.bucket, '')) {
      if (!key.startsWith('.')) await deleteBehindItsBack(t.bucket, key);
    }
    return;
  }
  for (const entry of fs.readdirSync(t.storageRoot)) {
    if (!entry.startsWith('.')) fs.rmSync(path.join(t.storageRoot, entry), { recursive: true });
  }
}

/** The `user.can.*` xattrs of a stored file, as texts. */
export async function xattrsOf(t: TestApp, filename: string): Promise<Record<string, string>> {
  const file = path.join(t.storageRoot, filename);
  const out: Record<string, string> = {};
  for (const name of await listAttributes(file)) {
    if (name.startsWith('user.can.')) {
      out[name.slice('user.can.'.length)] = (await getAttribute(file, name)).toString('utf8');
    }
  }
  return out;
}

/**
 * The attributes as the backend holds them, as texts by key: the `user.can.*` xattrs on
 * disk (`xattrsOf`); on S3 the object's `x-amz-meta-can-*` metadata, or, when the set went
 * to the `.meta/` sidecar (non-ASCII text, over 2 KB), the sidecar's set in the same texts.
 */
export async function storedAttributes(t: TestApp, name: string): Promise<Record<string, string>> {
  if (!t.bucket) return xattrsOf(t, name);
  const sidecar = await objectOf(t.bucket, `.meta/${sidecarName(name)}`);
  if (sidecar) {
    const attrs = parseSidecar(sidecar.body.toString('utf8'));
    if (!attrs) throw new Error(`unreadable sidecar of ${name}`);
    return Object.fromEntries(encodeAttributes(attrs));
  }
  return blobAttributes(t, name);
}

/**
 * The attributes kept on the blob itself, as texts by key: the `user.can.*` xattrs on disk,
 * or the object's `x-amz-meta-can-*` metadata on S3 (a `.meta/` sidecar not read).
 */
export async function blobAttributes(t: TestApp, name: string): Promise<Record<string, string>> {
  if (!t.bucket) return xattrsOf(t, name);
  const object = await objectOf(t.bucket, name);
  if (!object) throw new Error(`no object ${name}`);
  return Object.fromEntries(
    Object.entries(object.metadata)
      .filter(([k]) => k.startsWith('can-'))
      // S3 servers may spell `_` in a metadata name as `-` (Ceph does); no key has a `-`.
      .map(([k, v]) => [k.slice('can-'.length).replace(/-/g, '_'), v]),
  );
}

/** The `.meta/<name>.json` sidecar's text (a file, or an object on S3), or undefined. */
export async function storedSidecar(t: TestApp, name: string): Promise<string | undefined> {
  const key = `.meta/${name}.json`;
  if (t.bucket) return (await objectOf(t.bucket, key))?.body.toString('utf8');
  const file = path.join(t.storageRoot, key);
  return fs.existsSync(file) ? fs.readFileSync(file, 'utf8') : undefined;
}

/** The `.meta/` sidecars by name: the folder's files, or the objects under `.meta/` on S3. */
export async function storedSidecars(t: TestApp): Promise<string[]> {
  if (t.bucket) return [...(await objectSizesUnder(t.bucket, '.meta/')).keys()].sort();
  const dir = t.storage.layout.meta;
  return fs.existsSync(dir)
    ? fs
        .readdirSync(dir)
        .filter((n) => !n.startsWith('.'))
        .sort()
    : [];
}

/** The stored content of an asset blob (file or object), or undefined when there is none. */
export async function storedContent(t: TestApp, name: string): Promise<Buffer | undefined> {
  if (t.bucket) return (await objectOf(t.bucket, name))?.body;
  const file = path.join(t.storageRoot, name);
  return fs.existsSync(file) ? fs.readFileSync(file) : undefined;
}

/** Whether the asset blob `name` is there (file or object). */
export async function isStored(t: TestApp, name: string): Promise<boolean> {
  if (t.bucket) return objectExists(t.bucket, name);
  return fs.existsSync(path.join(t.storageRoot, name));
}

/** Serves `app` on a free port; `closed` resolves once the first connection has closed. */
export async function listen(
  app: http.RequestListener,
): Promise<{ port: number; closed: Promise<void>; stop: () => Promise<void> }> {
  const server = http.createServer(app);
  const closed = new Promise<void>((resolve) =>
    server.once('connection', (socket) => socket.once('close', () => resolve())),
  );
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return { port, closed, stop: () => new Promise((resolve) => server.close(() => resolve())) };
}

/** Number of rows in the index. */
export async function rowCount(t: TestApp): Promise<number> {
  const row = await t.index.db
    .selectFrom('asset')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

/** A valid-looking hash that no asset has. */
export const UNKNOWN_HASH = 'e'.repeat(64);

/**
 * Two assets whose metadata took every path into the files: a photo ingested with every
 * field then edited with PATCH, and a JSON value ingested then trashed.
 */
export async function storeEditedAndTrashed(
  app: App,
): Promise<{ photo: Ingested; data: Ingested }> {
  const base = '/api/v1/can/0';
  const photo = await ingestFile(app, 'pixels', 'photo.png', {
    application: 'cam',
    user: 'ann',
    tags: 'trip,2026',
    description: 'first',
    human_file_name: 'photo.png',
    human_readable_path: 'albums/trip',
  });
  await request(app)
    .patch(`${base}/asset/${photo.hash}`)
    .send({ tags: ['trip', 'best'], description: 'edited later' })
    .expect(200);
  const data = await ingestData(app, { data: { n: 1 }, user: 'bob', tags: 'json' });
  await request(app).delete(`${base}/asset/${data.hash}`).expect(200);
  return { photo, data };
}
