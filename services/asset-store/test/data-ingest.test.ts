import request from 'supertest';
import {
  expectedHash,
  ingestData,
  rowCount,
  stagedLeftovers,
  storedAssets,
  storedAttributes,
  storedContent,
} from './asset-helpers.js';
import { createTestApp, useTestApp, type TestApp } from './test-app.js';

const t = useTestApp('data_ingest', { max_json_bytes: 4096 });

const DATA = '/api/v1/can/0/ingest/data';

describe('data ingest', () => {
  it('stores JSON.stringify(data, null, 2) as .json with a recomputable hash', async () => {
    const data = { a: [1, 2], b: { c: 'ü' } };
    const { hash, timestamp, filename } = await ingestData(t.app, {
      data,
      tags: 'x, y',
      application: 'app',
      human_file_name: 'v.json',
    });
    const text = JSON.stringify(data, null, 2);
    expect(filename).toBe(`${timestamp}_${hash}_x_y.json`);
    expect((await storedContent(t, filename))?.toString('utf8')).toBe(text);
    expect(hash).toBe(expectedHash(text, timestamp));
    const meta = await request(t.app).get(`/api/v1/can/0/asset/${hash}/meta`).expect(200);
    expect(meta.body).toEqual({
      status: 'success',
      data: {
        hash,
        mime_type: 'application/json',
        application: 'app',
        tags: ['x', 'y'],
        human_filename: 'v.json',
        timestamp,
        is_trashed: false,
        is_corrupted: false,
        size: Buffer.byteLength(text),
        width: null,
        height: null,
        taken_at: null,
      },
    });
    expect((await storedAttributes(t, filename)).mime_type).toBe('application/json');
  });

  it.each([
    [null, 'null'],
    ['text', '"text"'],
    [42, '42'],
    [false, 'false'],
    [[1, 'a'], '[\n  1,\n  "a"\n]'],
  ])('stores the JSON value %j', async (data, stored) => {
    const { filename } = await ingestData(t.app, { data });
    expect((await storedContent(t, filename))?.toString('utf8')).toBe(stored);
  });

  it('takes the extension from an overriding mime_type', async () => {
    const { hash, filename } = await ingestData(t.app, { data: 'hi', mime_type: 'text/plain' });
    expect(filename).toMatch(/\.txt$/);
    const res = await request(t.app).get(`/api/v1/can/0/asset/${hash}`).expect(200);
    expect(res.headers['content-type']).toBe('text/plain');
    expect(res.text).toBe('"hi"');
  });

  const rejects = async (send: () => request.Test, status: number, error: string) => {
    const files = await storedAssets(t);
    const rows = await rowCount(t);
    const res = await send().expect(status);
    expect(res.body).toEqual({ status: 'error', error });
    expect(await storedAssets(t)).toEqual(files);
    expect(await rowCount(t)).toBe(rows);
    expect(await stagedLeftovers(t)).toEqual([]);
  };

  it('needs the data key', async () => {
    await rejects(
      () => request(t.app).post(DATA).send({ tags: 'a' }),
      400,
      'invalid body: expected a JSON object with a "data" key',
    );
  });

  it('needs a JSON object', async () => {
    await rejects(
      () => request(t.app).post(DATA).set('Content-Type', 'application/json').send('[1]'),
      400,
      'invalid body: expected a JSON object with a "data" key',
    );
    await rejects(
      () => request(t.app).post(DATA),
      400,
      'invalid body: expected a JSON object with a "data" key',
    );
  });

  it('refuses malformed JSON', async () => {
    await rejects(
      () => request(t.app).post(DATA).set('Content-Type', 'application/json').send('{"data":'),
      400,
      'malformed JSON body',
    );
  });

  it.each([
    [{ mime_type: 'nope' }, 'invalid mime_type: expected a MIME type like type/subtype'],
    [{ tags: ['a'] }, 'invalid tags: expected a comma-separated string'],
    [{ user: 'u'.repeat(1025) }, 'invalid user: expected at most 1024 characters'],
    [{ application: 'a\u0000b' }, 'invalid application: expected text without NUL characters'],
    [{ tags: 'a\u0000b' }, 'invalid tags: expected tags without NUL characters'],
    [{ description: 'x\udc00' }, 'invalid description: expected text without lone surrogates'],
    [{ tags: 'a,b\ud800' }, 'invalid tags: expected tags without lone surrogates'],
  ])('refuses bad metadata like file ingest does: %j', async (fields, error) => {
    await rejects(
      () =>
        request(t.app)
          .post(DATA)
          .send({ data: 1, ...fields }),
      400,
      error,
    );
  });

  it('answers a body over max_json_bytes with 413 and keeps nothing', async () => {
    await rejects(
      () =>
        request(t.app)
          .post(DATA)
          .send({ data: 'x'.repeat(5000) }),
      413,
      'request body too large',
    );
  });
});

describe('data ingest of deeply nested values', () => {
  let deep: TestApp;
  beforeAll(async () => {
    deep = await createTestApp('data_ingest_deep', { max_json_bytes: 1 << 20 });
  });
  afterAll(async () => {
    await deep.close();
  });

  it('answers 400 for nesting JSON.stringify cannot recurse into, and keeps nothing', async () => {
    const depth = 100_000;
    const body = `{"data":${'['.repeat(depth)}${']'.repeat(depth)}}`;
    const res = await request(deep.app)
      .post(DATA)
      .set('Content-Type', 'application/json')
      .send(body)
      .expect(400);
    expect(res.body).toEqual({
      status: 'error',
      error: 'invalid data: too deeply nested or too large once indented',
    });
    expect(await storedAssets(deep)).toEqual([]);
    expect(await rowCount(deep)).toBe(0);
    expect(await stagedLeftovers(deep)).toEqual([]);
  });

  it('still stores nesting it can indent', async () => {
    const data = JSON.parse(`${'['.repeat(200)}1${']'.repeat(200)}`) as unknown;
    const { filename } = await ingestData(deep.app, { data });
    expect((await storedContent(deep, filename))?.toString('utf8')).toBe(
      JSON.stringify(data, null, 2),
    );
    expect(await rowCount(deep)).toBe(1);
  });
});
