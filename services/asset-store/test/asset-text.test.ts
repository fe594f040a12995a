import { sql } from 'kysely';
import request from 'supertest';
import { ingestFile } from './asset-helpers.js';
import { JOB_TOKEN, jobAuth } from './job-helpers.js';
import { createTestApp, type TestApp } from './test-app.js';

/*
 * `q` reads `asset_text`, which triggers on `asset` keep (issue 42): one row per asset
 * with its lowercased search text, filter columns and flags. These tests change an asset
 * every way the service does and check that table's rows against the asset, then that a
 * search still finds (or hides) it.
 */

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp('asset_text', { admin_token: JOB_TOKEN });
});
afterAll(async () => {
  await t.close();
});
beforeEach(async () => {
  await t.index.db.deleteFrom('asset').execute();
});

const BASE = '/api/v1/can/0';

async function textRows() {
  const rows = await t.index.db.selectFrom('asset_text').selectAll().orderBy('timestamp').execute();
  return rows.map((r) => ({ ...r, timestamp: Number(r.timestamp) }));
}

async function found(q: string, extra: Record<string, string> = {}) {
  const res = await request(t.app)
    .get(`${BASE}/search`)
    .query({ q, ...extra })
    .expect(200);
  const body = res.body as { data: { items: { hash: string }[]; pagination: { total: number } } };
  return { hashes: body.data.items.map((i) => i.hash), total: body.data.pagination.total };
}

describe('asset_text, what q searches', () => {
  it('follows ingest, PATCH, trash, restore, corruption, repair and purge', async () => {
    const a = await ingestFile(t.app, 'harbour photo', 'h.jpg', {
      human_file_name: 'Harbour_01.JPG',
      human_readable_path: 'Fotos/Été',
      description: 'Evening at the Lantern',
      tags: 'Sea,boats',
      user: 'ann',
      application: 'cam',
      mime_type: 'image/jpeg',
    });
    const b = await ingestFile(t.app, 'a note', 'n.txt', {
      human_file_name: 'Note.txt',
      mime_type: 'text/plain',
    });
    const row = {
      timestamp: a.timestamp,
      text: 'harbour_01.jpg\nfotos/été\nevening at the lantern\nsea\nboats',
      application: 'cam',
      user: 'ann',
      mime_type: 'image/jpeg',
      is_trashed: false,
      is_corrupted: false,
    };
    const other = {
      timestamp: b.timestamp,
      text: 'note.txt\n', // no tags: an empty last field
      application: null,
      user: null,
      mime_type: 'text/plain',
      is_trashed: false,
      is_corrupted: false,
    };
    expect(await textRows()).toEqual([row, other]);
    expect(await found('LANTERN été', { mime_type: 'image/jpeg' })).toEqual({
      hashes: [a.hash],
      total: 1,
    });

    await request(t.app)
      .patch(`${BASE}/asset/${a.hash}`)
      .send({ tags: ['gulls'], description: 'Morning' })
      .expect(200);
    const patched = { ...row, text: 'harbour_01.jpg\nfotos/été\nmorning\ngulls' };
    expect(await textRows()).toEqual([patched, other]);
    expect(await found('lantern')).toEqual({ hashes: [], total: 0 });
    expect(await found('gulls morn')).toEqual({ hashes: [a.hash], total: 1 });

    await request(t.app).delete(`${BASE}/asset/${a.hash}`).expect(200);
    expect(await textRows()).toEqual([{ ...patched, is_trashed: true }, other]);
    expect(await found('gulls')).toEqual({ hashes: [], total: 0 });
    expect(await found('gulls', { include_trashed: 'true' })).toEqual({
      hashes: [a.hash],
      total: 1,
    });
    await request(t.app).post(`${BASE}/asset/${a.hash}/restore`).expect(200);
    expect(await textRows()).toEqual([patched, other]);

    // The verifier's finding and a later repair are these row updates.
    const setCorrupted = (v: boolean) =>
      t.index.db.updateTable('asset').set({ is_corrupted: v }).where('hash', '=', a.hash).execute();
    await setCorrupted(true);
    expect(await textRows()).toEqual([{ ...patched, is_corrupted: true }, other]);
    expect(await found('gulls')).toEqual({ hashes: [], total: 0 });
    expect(await found('gulls', { include_corrupted: 'true' })).toEqual({
      hashes: [a.hash],
      total: 1,
    });
    await setCorrupted(false);
    expect(await textRows()).toEqual([patched, other]);

    await request(t.app)
      .delete(`${BASE}/admin/asset/${a.hash}`)
      .set('Authorization', `Bearer ${JOB_TOKEN}`)
      .expect(200);
    expect(await textRows()).toEqual([other]);
    expect(await found('gulls')).toEqual({ hashes: [], total: 0 });
  });

  it('is refilled by a hard rebuild', async () => {
    const a = await ingestFile(t.app, 'x', 'x.png', {
      human_file_name: 'Harbour.png',
      tags: 'sea',
      mime_type: 'image/png',
    });
    const before = await textRows();
    expect(before).toEqual([
      {
        timestamp: a.timestamp,
        text: 'harbour.png\nsea',
        application: null,
        user: null,
        mime_type: 'image/png',
        is_trashed: false,
        is_corrupted: false,
      },
    ]);
    await request(t.app).post(`${BASE}/admin/rebuild?mode=hard`).set(jobAuth).expect(200);
    // The rebuild also brings back the files of earlier tests (only their rows were deleted).
    const after = await textRows();
    expect(after.filter((r) => r.timestamp === a.timestamp)).toEqual(before);
    const assets = await t.index.db.selectFrom('asset').select('timestamp').execute();
    expect(after.map((r) => r.timestamp)).toEqual(assets.map((r) => Number(r.timestamp)).sort());
    expect(await found('harb', { mime_type: 'image/png' })).toEqual({
      hashes: [a.hash],
      total: 1,
    });
  });

  it('answers short terms (no trigram) and terms combined with filters it does not carry', async () => {
    const a = await ingestFile(t.app, 'y', 'y.txt', {
      human_file_name: 'ab.txt',
      tags: 'red',
      mime_type: 'text/plain',
    });
    const b = await ingestFile(t.app, 'z', 'z.txt', {
      human_file_name: 'abc.txt',
      mime_type: 'text/plain',
    });
    expect((await found('b')).total).toBe(2);
    expect(await found('ab', { tags: 'red' })).toEqual({ hashes: [a.hash], total: 1 });
    expect(await found('abc', { hash: b.hash.slice(0, 6) })).toEqual({
      hashes: [b.hash],
      total: 1,
    });
  });

  it('finds 2-character terms through the pairs index: any letters, any case, never across fields', async () => {
    const c = await ingestFile(t.app, 'q', 'q.txt', {
      human_file_name: 'Ölgemälde.TXT',
      human_readable_path: 'kunst',
      description: 'x y',
    });
    // The index holds each text's pairs, lowercased, none with whitespace.
    const { rows } = await sql<{ pairs: string[] }>`
      select text_pairs(text) as pairs from asset_text where timestamp = ${c.timestamp}`.execute(
      t.index.db,
    );
    expect(rows[0]!.pairs).toEqual(expect.arrayContaining(['öl', 'äl', '.t', 'xt', 'ku']));
    expect(rows[0]!.pairs.filter((p) => /\s/.test(p))).toEqual([]);
    expect(await found('ÖL')).toEqual({ hashes: [c.hash], total: 1 });
    expect(await found('äl')).toEqual({ hashes: [c.hash], total: 1 });
    // "txt" ends the file name and "kunst" starts the path: no term spans the two.
    expect(await found('tk')).toEqual({ hashes: [], total: 0 });
    expect(await found('xy')).toEqual({ hashes: [], total: 0 });
  });

  it('computes the same pairs as a plain reading of the text, up to the longest description', async () => {
    /** Each distinct pair of neighbouring characters (code points) without whitespace. */
    const reference = (text: string) => {
      const chars = [...text];
      const pairs = new Set<string>();
      for (let i = 0; i + 1 < chars.length; i++) pairs.add(chars[i]! + chars[i + 1]!);
      return [...pairs].filter((p) => !/\s/.test(p)).sort();
    };
    const texts = [
      '',
      'a',
      'ab',
      'a b',
      'a\tb\nc d',
      'abab ab',
      'Ölgemälde ß',
      '日本語のテキスト',
      '𝄞 clef 😀x',
      'word '.repeat(3277).slice(0, 16_384),
      Array.from({ length: 16_384 }, (_, i) =>
        String.fromCodePoint(0x4e00 + ((i * 7919) % 9000)),
      ).join(''),
    ];
    for (const text of texts) {
      const { rows } = await sql<{ pairs: string[] }>`select text_pairs(${text}) as pairs`.execute(
        t.index.db,
      );
      expect([...rows[0]!.pairs].sort()).toEqual(reference(text));
    }
  });

  it('finds a pair in a description of 16,384 characters', async () => {
    const description = `${'lorem ipsum '.repeat(1364)}zq`.padEnd(16_384, '.');
    expect(description).toHaveLength(16_384);
    const a = await ingestFile(t.app, 'long', 'l.txt', { description });
    expect(await found('zq')).toEqual({ hashes: [a.hash], total: 1 });
    expect(await found('qz')).toEqual({ hashes: [], total: 0 });
  });
});
