import request from 'supertest';
import { rowCount, stagedLeftovers, storedAssets, storedContent } from './asset-helpers.js';
import { createTestApp, type TestApp } from './test-app.js';

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp('lossless_input');
});
afterAll(async () => {
  await t.close();
});

const BASE = '/api/v1/can/0';

/** Posts raw bytes as data ingest and answers the stored text. */
async function storeRaw(body: string | Buffer): Promise<string> {
  const res = await request(t.app)
    .post(`${BASE}/ingest/data`)
    .set('Content-Type', 'application/json')
    .send(body)
    .expect(200);
  const { filename } = (res.body as { data: { filename: string } }).data;
  return (await storedContent(t, filename))!.toString('utf8');
}

describe('data ingest keeps the numbers sent', () => {
  it.each([
    ['a number past a double', '{"data": 1e400}', '1e400'],
    ['an integer past 2^53', '{"data": 12345678901234567890}', '12345678901234567890'],
    [
      'digits as written',
      '{"data": [1.50, -0, 2E-5, 0.1]}',
      '[\n  1.50,\n  -0,\n  2E-5,\n  0.1\n]',
    ],
    ['a nested big number', '{"data": {"id": 9007199254740993}}', '{\n  "id": 9007199254740993\n}'],
  ])('stores %s exactly', async (_label, body, stored) => {
    expect(await storeRaw(body)).toBe(stored);
  });

  it('still names a number in a metadata field as the wrong type', async () => {
    const res = await request(t.app)
      .post(`${BASE}/ingest/data`)
      .send('{"data": 1, "description": 12345678901234567890}')
      .set('Content-Type', 'application/json')
      .expect(400);
    expect((res.body as { error: string }).error).toMatch(/^invalid description: /);
  });

  it('keeps the last of duplicate keys, as before', async () => {
    expect(await storeRaw('{"data": {"a": 1, "a": 2}}')).toBe('{\n  "a": 2\n}');
  });
});

describe('bytes that are not UTF-8', () => {
  it.each([
    ['a string in data', Buffer.from('{"data": {"name": "a\xff"}}', 'latin1'), 'data.name'],
    [
      'a metadata field',
      Buffer.from('{"data": 1, "description": "\xc3"}', 'latin1'),
      'description',
    ],
    ['a key', Buffer.from('{"data": {"\xfe": 1}}', 'latin1'), 'data.\uFFFD'],
  ])('in %s of a JSON body are 400 naming the field', async (_label, body, field) => {
    const files = (await storedAssets(t)).length;
    // Any type is read as JSON; supertest would re-encode a Buffer sent as JSON.
    const res = await request(t.app)
      .post(`${BASE}/ingest/data`)
      .set('Content-Type', 'text/plain')
      .send(body)
      .expect(400);
    expect(res.body).toEqual({ status: 'error', error: `invalid ${field}: not valid UTF-8` });
    expect(await storedAssets(t)).toHaveLength(files);
  });

  it('in a PATCH body are 400 naming the field', async () => {
    const res = await request(t.app)
      .patch(`${BASE}/asset/${'a'.repeat(64)}`)
      .set('Content-Type', 'text/plain')
      .send(Buffer.from('{"description": "caf\xe9"}', 'latin1'))
      .expect(400);
    expect(res.body).toEqual({ status: 'error', error: 'invalid description: not valid UTF-8' });
  });

  it('in a multipart text field are 400 naming it, and nothing is kept', async () => {
    const rows = await rowCount(t);
    const files = (await storedAssets(t)).length;
    // Built by hand: supertest writes field strings as UTF-8.
    const boundary = 'x-boundary';
    const body = Buffer.concat([
      Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="description"\r\n\r\n`),
      Buffer.from('caf\xe9', 'latin1'),
      Buffer.from(
        `\r\n--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="b.txt"\r\n` +
          `Content-Type: text/plain\r\n\r\nworld\r\n--${boundary}--\r\n`,
      ),
    ]);
    const bad = await request(t.app)
      .post(`${BASE}/ingest`)
      .set('Content-Type', `multipart/form-data; boundary=${boundary}`)
      .send(body)
      .expect(400);
    expect(bad.body).toEqual({ status: 'error', error: 'invalid description: not valid UTF-8' });
    expect(await rowCount(t)).toBe(rows);
    expect(await storedAssets(t)).toHaveLength(files);
    expect(await stagedLeftovers(t)).toEqual([]);
  });

  it('keeps UTF-8 text in a multipart field as sent', async () => {
    const res = await request(t.app)
      .post(`${BASE}/ingest`)
      .field('description', 'Grüße 😀 \uFFFD')
      .attach('file', Buffer.from('grüße'), 'g.txt')
      .expect(200);
    const { hash } = (res.body as { data: { hash: string } }).data;
    const meta = await request(t.app).get(`${BASE}/asset/${hash}/meta`).expect(200);
    expect((meta.body as { data: { description: string } }).data.description).toBe(
      'Grüße 😀 \uFFFD',
    );
  });
});
