import { createHash } from 'node:crypto';
import request from 'supertest';
import {
  expectedHash,
  type Ingested,
  rowCount,
  stagedLeftovers,
  storedAssets,
  storedAttributes,
  storedContent,
} from './asset-helpers.js';
import { useTestApp } from './test-app.js';

// Plain `POST /api/v1/can/0/ingest` is answered ahead of Express (src/assets/ingest-lane.ts);
// a query string or a trailing slash sends the same request through the Express route.
// Every answer, and what each leaves on disk and in the index, must match.
const LANE = '/api/v1/can/0/ingest';
const EXPRESS_SPELLINGS = ['/api/v1/can/0/ingest?via=express', '/api/v1/can/0/ingest/'];
const MAX_UPLOAD = 1024;

const t = useTestApp('ingest_lane', { max_upload_bytes: MAX_UPLOAD });

/** What an ingest can leave behind: rows, asset files and `.tmp/` leftovers. */
async function state(): Promise<[number, string[], string[]]> {
  return [await rowCount(t), await storedAssets(t), await stagedLeftovers(t)];
}

type Send = (url: string) => request.Test;

const refusals: [string, Send, number, unknown][] = [
  [
    'no file part',
    (url) => request(t.app).post(url).field('tags', 'a'),
    400,
    {
      status: 'error',
      error: 'missing file: exactly one "file" part is required',
    },
  ],
  [
    'two file parts',
    (url) =>
      request(t.app)
        .post(url)
        .attach('file', Buffer.from('one'), 'one.txt')
        .attach('file', Buffer.from('two'), 'two.txt'),
    400,
    {
      status: 'error',
      error: 'too many files: exactly one "file" part is required',
    },
  ],
  [
    'a file over max_upload_bytes',
    (url) =>
      request(t.app)
        .post(url)
        .attach('file', Buffer.alloc(MAX_UPLOAD + 1, 7), 'big.bin'),
    413,
    { status: 'error', error: `file too large: the limit is ${MAX_UPLOAD} bytes` },
  ],
  [
    'a body that is not multipart',
    (url) => request(t.app).post(url).set('Content-Type', 'text/plain').send('plain text'),
    400,
    {
      status: 'error',
      error: 'missing file: exactly one "file" part is required',
    },
  ],
  [
    'a multipart body cut off inside its part',
    (url) =>
      request(t.app)
        .post(url)
        .set('Content-Type', 'multipart/form-data; boundary=xyz')
        .send('--xyz\r\nContent-Disposition: form-data; name="file"; filename="a.txt"\r\n\r\nhalf'),
    400,
    { status: 'error', error: 'invalid multipart body: Unexpected end of form' },
  ],
  [
    'a description over its length limit',
    (url) =>
      request(t.app)
        .post(url)
        .field('description', 'd'.repeat(16_385))
        .attach('file', Buffer.from('x'), 'x.txt'),
    400,
    { status: 'error', error: 'invalid description: expected at most 16384 characters' },
  ],
];

describe('POST /api/v1/can/0/ingest ahead of Express', () => {
  it.each(refusals)(
    'refuses %s exactly as the Express route does, leaving no file and no row',
    async (_name, send, status, body) => {
      const before = await state();
      const answers: unknown[] = [];
      for (const url of [LANE, ...EXPRESS_SPELLINGS]) {
        const res = await send(url);
        expect(res.status).toBe(status);
        expect(res.headers['content-type']).toBe('application/json; charset=utf-8');
        answers.push(res.body);
      }
      expect(answers[1]).toEqual(answers[0]);
      expect(answers[2]).toEqual(answers[0]);
      expect(answers[0]).toEqual(body);
      expect(await state()).toEqual(before);
    },
  );

  it('stores the same asset, file, attributes and row through either way in', async () => {
    const stored = [];
    for (const url of [LANE, ...EXPRESS_SPELLINGS]) {
      const res = await request(t.app)
        .post(url)
        .field('tags', 'lane,check')
        .field('description', 'either way')
        .attach('file', Buffer.from('same content'), 'same.txt')
        .expect(200);
      const { timestamp, hash, filename } = (res.body as { data: Ingested }).data;
      expect(hash).toBe(expectedHash('same content', timestamp));
      expect(filename).toBe(`${timestamp}_${hash}_lane_check.txt`);
      expect((await storedContent(t, filename))?.toString('utf8')).toBe('same content');
      const meta = await request(t.app).get(`/api/v1/can/0/asset/${hash}/meta`).expect(200);
      expect(meta.body).toEqual({
        status: 'success',
        data: {
          hash,
          timestamp,
          mime_type: 'text/plain',
          tags: ['lane', 'check'],
          description: 'either way',
          is_trashed: false,
          is_corrupted: false,
          size: 12,
          width: null,
          height: null,
          taken_at: null,
        },
      });
      expect(await storedAttributes(t, filename)).toEqual({
        hash,
        timestamp: String(timestamp),
        mime_type: 'text/plain',
        tags: '["lane","check"]',
        description: 'either way',
        is_trashed: 'false',
        content_sha256: createHash('sha256').update('same content').digest('hex'),
      });
      stored.push(filename);
    }
    expect(await storedAssets(t)).toEqual(expect.arrayContaining(stored));
    expect(await stagedLeftovers(t)).toEqual([]);
  });

  it('echoes the request id and counts the ingest under its route in /metrics', async () => {
    const res = await request(t.app)
      .post(LANE)
      .set('X-Request-Id', 'lane-check-1')
      .attach('file', Buffer.from('counted'), 'counted.txt')
      .expect(200);
    expect(res.headers['x-request-id']).toBe('lane-check-1');
    const metrics = await request(t.app).get('/metrics').expect(200);
    expect(metrics.text).toMatch(
      /asset_store_http_request_duration_seconds_count\{method="POST",route="\/api\/v1\/can\/0\/ingest",status="200"\} [1-9]\d*/,
    );
  });

  it('leaves other methods on the path to Express: 405 with Allow', async () => {
    const res = await request(t.app).put(LANE).expect(405);
    expect(res.headers.allow).toBe('POST');
  });
});
