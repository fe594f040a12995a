import { createHash } from 'node:crypto';
import request from 'supertest';
import { ingestFile } from './asset-helpers.js';
import { createTestApp, type TestApp } from './test-app.js';

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp('content_lookup');
});
afterAll(async () => {
  await t.close();
});

const BASE = '/api/v1/can/0';
const LOOKUP = `${BASE}/search/sha256`;
const sha256 = (content: string) => createHash('sha256').update(content).digest('hex');
/** A digest no asset of this file holds. */
const absent = (i: number) => sha256(`never stored ${i}`);

function lookup(body: unknown) {
  return request(t.app)
    .post(LOOKUP)
    .set('Content-Type', 'application/json')
    .send(typeof body === 'string' ? body : JSON.stringify(body));
}

describe('POST /search/sha256: which contents the store holds', () => {
  it('names, per digest held, its newest asset, and lists the digests not held, in the order asked', async () => {
    const older = await ingestFile(t.app, 'twice stored', 'a.txt');
    const newer = await ingestFile(t.app, 'twice stored', 'b.txt');
    const once = await ingestFile(t.app, 'stored once', 'c.txt');
    const res = await lookup({
      // Either case; a repeated digest is answered once.
      sha256: [absent(1), sha256('stored once').toUpperCase(), sha256('twice stored'), absent(1)],
    }).expect(200);
    expect(res.body).toEqual({
      status: 'success',
      data: {
        items: [
          { sha256: sha256('stored once'), hash: once.hash, timestamp: once.timestamp },
          { sha256: sha256('twice stored'), hash: newer.hash, timestamp: newer.timestamp },
        ],
        missing: [absent(1)],
      },
    });
    expect(newer.timestamp).toBeGreaterThan(older.timestamp);
  });

  it('takes 1,000 digests in one request', async () => {
    const held = await ingestFile(t.app, 'one of a thousand', 'k.txt');
    const asked = Array.from({ length: 999 }, (_, i) => absent(1000 + i));
    asked.splice(500, 0, sha256('one of a thousand'));
    const res = await lookup({ sha256: asked }).expect(200);
    expect(res.body).toEqual({
      status: 'success',
      data: {
        items: [
          { sha256: sha256('one of a thousand'), hash: held.hash, timestamp: held.timestamp },
        ],
        missing: asked.filter((d) => d !== sha256('one of a thousand')),
      },
    });
  });

  it('leaves out trashed and corrupted assets unless asked to include them, like search', async () => {
    const trashed = await ingestFile(t.app, 'trashed content', 't.txt');
    await request(t.app).delete(`${BASE}/asset/${trashed.hash}`).expect(200);
    const corrupted = await ingestFile(t.app, 'corrupted content', 'x.txt');
    await t.index.db
      .updateTable('asset')
      .set({ is_corrupted: true })
      .where('hash', '=', corrupted.hash)
      .execute();
    const digests = [sha256('trashed content'), sha256('corrupted content')];

    const answer = async (body: object) => (await lookup(body).expect(200)).body as unknown;
    expect(await answer({ sha256: digests })).toEqual({
      status: 'success',
      data: { items: [], missing: digests },
    });
    expect(await answer({ sha256: digests, include_trashed: true })).toEqual({
      status: 'success',
      data: {
        items: [{ sha256: digests[0], hash: trashed.hash, timestamp: trashed.timestamp }],
        missing: [digests[1]],
      },
    });
    expect(
      await answer({ sha256: digests, include_trashed: true, include_corrupted: true }),
    ).toEqual({
      status: 'success',
      data: {
        items: [
          { sha256: digests[0], hash: trashed.hash, timestamp: trashed.timestamp },
          { sha256: digests[1], hash: corrupted.hash, timestamp: corrupted.timestamp },
        ],
        missing: [],
      },
    });
  });

  it('keeps the one-digest search working beside it', async () => {
    const one = await ingestFile(t.app, 'searched alone', 's.txt');
    const res = await request(t.app)
      .get(`${BASE}/search?sha256=${sha256('searched alone')}`)
      .expect(200);
    expect(
      (res.body as { data: { items: { hash: string }[] } }).data.items.map((i) => i.hash),
    ).toEqual([one.hash]);
  });

  const many = Array.from({ length: 1001 }, (_, i) => absent(i));
  it.each([
    ['no sha256', {}, 'invalid sha256: expected an array of SHA-256 digests'],
    ['one string', { sha256: sha256('a') }, 'invalid sha256: expected an array of SHA-256 digests'],
    ['no digest', { sha256: [] }, 'invalid sha256: expected at least 1 digest'],
    ['1,001 digests', { sha256: many }, 'invalid sha256: expected at most 1000 digests'],
    [
      'a short one',
      { sha256: [absent(0), 'abc'] },
      'invalid sha256: expected 64 hexadecimal characters',
    ],
    ['a number', { sha256: [absent(0), 5] }, 'invalid sha256: expected 64 hexadecimal characters'],
    [
      'a non-hex one',
      { sha256: [`${absent(0).slice(0, 63)}g`] },
      'invalid sha256: expected 64 hexadecimal characters',
    ],
    [
      'a text switch',
      { sha256: [absent(0)], include_trashed: 'true' },
      'invalid include_trashed: expected true or false',
    ],
    ['an unknown field', { sha256: [absent(0)], limit: 5 }, 'invalid body: unknown field "limit"'],
    ['a bare array', [absent(0)], 'invalid body: expected a JSON object'],
    ['malformed JSON', '{"sha256": [', 'malformed JSON body'],
  ])('refuses %s with 400 naming what is wrong', async (_label, body, error) => {
    const res = await lookup(body).expect(400);
    expect(res.body).toEqual({ status: 'error', error });
  });

  it('refuses a body over 256 KiB with 413', async () => {
    const res = await lookup(`{"sha256": ["${'a'.repeat(300_000)}"]}`).expect(413);
    expect(res.body).toEqual({ status: 'error', error: 'request body too large' });
  });

  it('answers another method with 405 naming POST', async () => {
    const res = await request(t.app).get(LOOKUP).expect(405);
    expect(res.body).toEqual({ status: 'error', error: 'method not allowed' });
    expect(res.headers.allow).toBe('POST');
  });
});
