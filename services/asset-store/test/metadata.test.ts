import request from 'supertest';
import {
  ingestFile,
  isStored,
  storedAttributes,
  storedSidecar,
  UNKNOWN_HASH,
} from './asset-helpers.js';
import { useTestApp } from './test-app.js';

const t = useTestApp('metadata');

const asset = (hash: string) => `/api/v1/can/0/asset/${hash}`;

const meta = async (hash: string) =>
  (
    (
      await request(t.app)
        .get(`${asset(hash)}/meta`)
        .expect(200)
    ).body as { data: Record<string, unknown> }
  ).data;

describe('metadata', () => {
  it('answers an unknown hash with 404 and a malformed one with 400', async () => {
    expect(
      (
        await request(t.app)
          .get(`${asset(UNKNOWN_HASH)}/meta`)
          .expect(404)
      ).body,
    ).toEqual({
      status: 'error',
      error: 'asset not found',
    });
    await request(t.app)
      .get(`${asset('123')}/meta`)
      .expect(400);
  });
});

describe('PATCH', () => {
  it('replaces the tags (normalised) and the description, and rewrites the attributes', async () => {
    const { hash, filename, timestamp } = await ingestFile(t.app, 'x', 'a.txt', {
      tags: 'old,older',
      description: 'before',
      user: 'u',
    });
    const res = await request(t.app)
      .patch(asset(hash))
      .send({ tags: [' new ', 'new', '', 'two'], description: 'after' })
      .expect(200);
    expect(res.body).toEqual({ status: 'success', data: 'updated' });
    expect(await meta(hash)).toEqual({
      hash,
      mime_type: 'text/plain',
      user: 'u',
      tags: ['new', 'two'],
      description: 'after',
      timestamp,
      is_trashed: false,
      is_corrupted: false,
      size: 1,
      width: null,
      height: null,
      taken_at: null,
    });
    const attrs = await storedAttributes(t, filename);
    expect(attrs.tags).toBe('["new","two"]');
    expect(attrs.description).toBe('after');
    expect(await isStored(t, filename)).toBe(true);
  });

  it('changes only the fields present', async () => {
    const { hash } = await ingestFile(t.app, 'x', 'a.txt', { tags: 'keep', description: 'd1' });
    await request(t.app).patch(asset(hash)).send({ description: 'd2' }).expect(200);
    expect(await meta(hash)).toMatchObject({ tags: ['keep'], description: 'd2' });
    await request(t.app).patch(asset(hash)).send({ tags: [] }).expect(200);
    expect(await meta(hash)).toMatchObject({ tags: [], description: 'd2' });
  });

  it('treats {} as a valid no-op', async () => {
    const { hash } = await ingestFile(t.app, 'x', 'a.txt', { tags: 'a' });
    const before = await meta(hash);
    const res = await request(t.app).patch(asset(hash)).send({}).expect(200);
    expect(res.body).toEqual({ status: 'success', data: 'updated' });
    expect(await meta(hash)).toEqual(before);
  });

  it('takes a PATCH without a body as {}: nothing changes (the OpenAPI body is optional)', async () => {
    const { hash, filename } = await ingestFile(t.app, 'x', 'a.txt', {
      tags: 'a',
      description: 'd',
    });
    const before = await meta(hash);
    const res = await request(t.app).patch(asset(hash)).expect(200);
    expect(res.body).toEqual({ status: 'success', data: 'updated' });
    expect(await meta(hash)).toEqual(before);
    expect(await storedAttributes(t, filename)).toMatchObject({ tags: '["a"]', description: 'd' });
  });

  it('removes the description when it is set to an empty string', async () => {
    const { hash, filename } = await ingestFile(t.app, 'x', 'a.txt', { description: 'd' });
    await request(t.app).patch(asset(hash)).send({ description: '' }).expect(200);
    expect(await meta(hash)).not.toHaveProperty('description');
    expect(await storedAttributes(t, filename)).not.toHaveProperty('description');
  });

  it('moves a 16,384-character description to the sidecar and back', async () => {
    const { hash, filename } = await ingestFile(t.app, 'x', 'a.txt');
    const long = 'L'.repeat(16_384);
    await request(t.app).patch(asset(hash)).send({ description: long }).expect(200);
    expect((await meta(hash)).description).toBe(long);
    const sidecar = await storedSidecar(t, filename);
    expect((JSON.parse(sidecar ?? '{}') as { description?: string }).description).toBe(long);
    await request(t.app).patch(asset(hash)).send({ description: 'short' }).expect(200);
    expect(await storedSidecar(t, filename)).toBeUndefined();
    expect((await storedAttributes(t, filename)).description).toBe('short');
  });

  it.each([
    [{ name: 'x' }, 'invalid body: unknown field "name"'],
    [{ tags: 'a,b' }, 'invalid tags: expected an array of strings'],
    [{ tags: ['a', 1] }, 'invalid tags: expected an array of strings'],
    [{ description: 5 }, 'invalid description: expected a string'],
    [{ description: 'x'.repeat(16_385) }, 'invalid description: expected at most 16384 characters'],
    [
      { tags: Array.from({ length: 65 }, (_, i) => `t${i}`) },
      'invalid tags: expected at most 64 tags',
    ],
    [{ tags: ['x'.repeat(65)] }, 'invalid tags: expected each tag to have 1-64 characters'],
    [{ tags: ['ok', 'a\u0000b'] }, 'invalid tags: expected tags without NUL characters'],
    [{ description: 'a\u0000b' }, 'invalid description: expected text without NUL characters'],
    [{ tags: ['ok', 'a\ud800b'] }, 'invalid tags: expected tags without lone surrogates'],
    [{ description: 'a\udc00b' }, 'invalid description: expected text without lone surrogates'],
    [[], 'invalid body: expected a JSON object'],
    ['"text"', 'invalid body: expected a JSON object'],
  ])('refuses %j with 400 and changes nothing', async (body, error) => {
    const { hash, filename } = await ingestFile(t.app, 'x', 'a.txt', {
      tags: 'orig',
      description: 'o',
    });
    const before = await meta(hash);
    const attrsBefore = await storedAttributes(t, filename);
    const res = await request(t.app)
      .patch(asset(hash))
      .set('Content-Type', 'application/json')
      .send(typeof body === 'string' ? body : JSON.stringify(body))
      .expect(400);
    expect(res.body).toEqual({ status: 'error', error });
    expect(await meta(hash)).toEqual(before);
    expect(await storedAttributes(t, filename)).toEqual(attrsBefore);
  });

  it('refuses a malformed JSON body with 400', async () => {
    const { hash } = await ingestFile(t.app, 'x', 'a.txt');
    const res = await request(t.app)
      .patch(asset(hash))
      .set('Content-Type', 'application/json')
      .send('{"tags": [')
      .expect(400);
    expect(res.body).toEqual({ status: 'error', error: 'malformed JSON body' });
  });

  it('answers an unknown hash with 404', async () => {
    const res = await request(t.app).patch(asset(UNKNOWN_HASH)).send({ tags: [] }).expect(404);
    expect(res.body).toEqual({ status: 'error', error: 'asset not found' });
  });
});

describe('trash and restore', () => {
  it('trash and restore flip is_trashed, idempotently, in the row and the attributes', async () => {
    const { hash, filename } = await ingestFile(t.app, 'x', 'a.txt');
    for (let i = 0; i < 2; i++) {
      const res = await request(t.app).delete(asset(hash)).expect(200);
      expect(res.body).toEqual({ status: 'success', data: 'trashed' });
      expect((await meta(hash)).is_trashed).toBe(true);
      expect((await storedAttributes(t, filename)).is_trashed).toBe('true');
    }
    expect(await isStored(t, filename)).toBe(true);
    for (let i = 0; i < 2; i++) {
      const res = await request(t.app)
        .post(`${asset(hash)}/restore`)
        .expect(200);
      expect(res.body).toEqual({ status: 'success', data: 'restored' });
      expect((await meta(hash)).is_trashed).toBe(false);
      expect((await storedAttributes(t, filename)).is_trashed).toBe('false');
    }
  });

  it('answer an unknown hash with 404 and a malformed one with 400', async () => {
    await request(t.app).delete(asset(UNKNOWN_HASH)).expect(404);
    await request(t.app)
      .post(`${asset(UNKNOWN_HASH)}/restore`)
      .expect(404);
    await request(t.app).delete(asset('xyz')).expect(400);
    await request(t.app)
      .post(`${asset('xyz')}/restore`)
      .expect(400);
  });
});
