import { createHash, randomBytes } from 'node:crypto';
import http from 'node:http';
import request from 'supertest';
import {
  expectedHash,
  ingestFile,
  listen,
  blobAttributes,
  isStored,
  rowCount,
  stagedLeftovers,
  storedAssets,
  storedContent,
} from './asset-helpers.js';
import { useTestApp } from './test-app.js';

const t = useTestApp('ingest');

const INGEST = '/api/v1/can/0/ingest';

describe('file ingest', () => {
  it('stores the file under {timestamp}_{hash}_{tags}.{ext} with a hash anyone can recompute', async () => {
    const content = Buffer.from('\x89PNG\r\n\x1a\n fake but named png');
    const res = await request(t.app)
      .post(INGEST)
      .field('tags', ' holiday , sea side,holiday,, ')
      .field('application', 'camera-app')
      .field('user', 'alice')
      .field('description', 'first day')
      .field('human_file_name', 'Strand.png')
      .field('human_readable_path', '/2026/summer')
      .attach('file', content, 'IMG_1.png')
      .expect(200);
    const body = res.body as { data: { timestamp: number; hash: string; filename: string } };
    const { timestamp, hash } = body.data;
    expect(body).toEqual({
      status: 'success',
      data: { timestamp, hash, filename: `${timestamp}_${hash}_holiday_sea-side.png` },
    });
    expect(timestamp).toBeGreaterThan(1_700_000_000_000);
    expect(hash).toBe(expectedHash(content, timestamp));
    expect(await storedContent(t, body.data.filename)).toEqual(content);

    const meta = await request(t.app).get(`/api/v1/can/0/asset/${hash}/meta`).expect(200);
    expect(meta.body).toEqual({
      status: 'success',
      data: {
        hash,
        mime_type: 'image/png',
        application: 'camera-app',
        user: 'alice',
        tags: ['holiday', 'sea side'],
        description: 'first day',
        human_filename: 'Strand.png',
        human_path: '/2026/summer',
        timestamp,
        is_trashed: false,
        is_corrupted: false,
        // Not a PNG sharp can read: an image's facts are probed, and unknown.
        size: content.length,
        width: null,
        height: null,
        taken_at: null,
      },
    });
    expect(await blobAttributes(t, body.data.filename)).toEqual({
      hash,
      timestamp: String(timestamp),
      mime_type: 'image/png',
      application: 'camera-app',
      user: 'alice',
      tags: '["holiday","sea side"]',
      description: 'first day',
      human_filename: 'Strand.png',
      human_path: '/2026/summer',
      is_trashed: 'false',
      content_sha256: createHash('sha256').update(content).digest('hex'),
    });
    const row = await t.index.db
      .selectFrom('asset')
      .select(['path', 'size', 'content_sha256'])
      .where('hash', '=', hash)
      .executeTakeFirstOrThrow();
    expect(row).toEqual({
      path: body.data.filename,
      size: content.length,
      content_sha256: createHash('sha256').update(content).digest('hex'),
    });
  });

  it('leaves absent metadata out of the record and shows tags as []', async () => {
    const { hash, timestamp } = await ingestFile(t.app, 'plain', 'x.bin');
    const meta = await request(t.app).get(`/api/v1/can/0/asset/${hash}/meta`).expect(200);
    expect(meta.body).toEqual({
      status: 'success',
      data: {
        hash,
        mime_type: 'application/octet-stream',
        tags: [],
        timestamp,
        is_trashed: false,
        is_corrupted: false,
        size: 5,
        width: null,
        height: null,
        taken_at: null,
      },
    });
  });

  it('accepts a 0-byte file', async () => {
    const { hash, timestamp, filename } = await ingestFile(t.app, '', 'empty.txt');
    expect(hash).toBe(expectedHash('', timestamp));
    expect(filename).toBe(`${timestamp}_${hash}.txt`);
    expect((await storedContent(t, filename))?.length).toBe(0);
  });

  it('lets mime_type win over the file name and pick the extension', async () => {
    const { hash, filename } = await ingestFile(t.app, 'a,b', 'data.png', {
      mime_type: 'text/csv',
    });
    expect(filename).toMatch(/\.csv$/);
    const meta = await request(t.app).get(`/api/v1/can/0/asset/${hash}/meta`);
    expect((meta.body as { data: { mime_type: string } }).data.mime_type).toBe('text/csv');
  });

  it('detects the type from the content when the name says nothing', async () => {
    const gif = Buffer.from('R0lGODlhAQABAIAAAAAAAP///yH5BAEAAAAALAAAAAABAAEAAAIBRAA7', 'base64');
    const { hash, filename } = await ingestFile(t.app, gif, 'noext');
    expect(filename).toMatch(/\.gif$/);
    const meta = await request(t.app).get(`/api/v1/can/0/asset/${hash}/meta`);
    expect((meta.body as { data: { mime_type: string } }).data.mime_type).toBe('image/gif');
  });

  it('takes the extension of the type, then of the original name, then bin', async () => {
    const unknown = await ingestFile(t.app, 'x', 'weird.qqq');
    expect(unknown.filename).toBe(`${unknown.timestamp}_${unknown.hash}.bin`);
    const meta = await request(t.app).get(`/api/v1/can/0/asset/${unknown.hash}/meta`);
    expect((meta.body as { data: { mime_type: string } }).data.mime_type).toBe(
      'application/octet-stream',
    );
    const named = await ingestFile(t.app, 'x', 'weird.qqq', {
      mime_type: 'application/x-unknown-thing',
    });
    expect(named.filename).toBe(`${named.timestamp}_${named.hash}.qqq`);
    const bare = await ingestFile(t.app, 'x', 'noext', {
      mime_type: 'application/x-unknown-thing',
    });
    expect(bare.filename).toBe(`${bare.timestamp}_${bare.hash}.bin`);
  });

  it('gives identical content ingested twice two different hashes', async () => {
    const a = await ingestFile(t.app, 'same', 's.txt');
    const b = await ingestFile(t.app, 'same', 's.txt');
    expect(a.hash).not.toBe(b.hash);
    expect(b.timestamp).toBeGreaterThan(a.timestamp);
  });

  it('gives 100 concurrent ingests 100 distinct, increasing timestamps', async () => {
    const results = await Promise.all(
      Array.from({ length: 100 }, (_, i) => ingestFile(t.app, `content ${i}`, `c${i}.txt`)),
    );
    const stamps = results.map((r) => r.timestamp);
    expect(new Set(stamps).size).toBe(100);
    results.forEach((r, i) => expect(r.hash).toBe(expectedHash(`content ${i}`, r.timestamp)));
    const sorted = [...stamps].sort((a, b) => a - b);
    for (let i = 1; i < sorted.length; i++) expect(sorted[i]!).toBeGreaterThan(sorted[i - 1]!);
  });

  it('stores the exact bytes when the body arrives in pieces cut inside the boundary', async () => {
    const boundary = 'cut-here-4f1c';
    const delimiter = `\r\n--${boundary}`;
    // Every proper prefix of the delimiter inside the content keeps the parser matching in
    // part; the pieces end inside those prefixes and inside the closing delimiter.
    const prefixes = Array.from({ length: delimiter.length - 1 }, (_, i) =>
      delimiter.slice(0, i + 1),
    );
    const content = Buffer.concat([
      randomBytes(70_000),
      Buffer.from(prefixes.join('x')),
      randomBytes(500),
    ]);
    const head = Buffer.from(
      `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="cut.bin"\r\n` +
        'Content-Type: application/octet-stream\r\n\r\n',
    );
    const body = Buffer.concat([head, content, Buffer.from(`${delimiter}--\r\n`)]);
    const inPrefixes = head.length + 70_000 + 40;
    const closing = head.length + content.length;
    const { port, stop } = await listen(t.app);
    try {
      for (const cut of [closing + 1, closing + 3, closing + 8, closing + delimiter.length]) {
        const res = await postInPieces(port, `multipart/form-data; boundary=${boundary}`, [
          body.subarray(0, inPrefixes),
          body.subarray(inPrefixes, cut),
          body.subarray(cut),
        ]);
        expect(res.status).toBe(200);
        const { timestamp, hash, filename } = res.data;
        expect(hash).toBe(expectedHash(content, timestamp));
        expect((await storedContent(t, filename))?.equals(content)).toBe(true);
      }
    } finally {
      await stop();
    }
  });

  it('cuts the tags part of the filename at 255 bytes but keeps every tag in the record', async () => {
    const tags = Array.from({ length: 10 }, (_, i) => `t${i}`.padEnd(60, 'x'));
    const { timestamp, hash, filename } = await ingestFile(t.app, 'x', 'a.txt', {
      tags: tags.join(','),
    });
    const head = `${timestamp}_${hash}_`;
    expect(filename).toBe(`${head}${tags.join('_').slice(0, 255 - head.length - 4)}.txt`);
    expect(Buffer.byteLength(filename)).toBe(255);
    const meta = await request(t.app).get(`/api/v1/can/0/asset/${hash}/meta`);
    expect((meta.body as { data: { tags: string[] } }).data.tags).toEqual(tags);
  });

  it('keeps the sidecar of a 255-byte name under the asset’s identity', async () => {
    const tags = Array.from({ length: 10 }, (_, i) => `t${i}`.padEnd(60, 'x'));
    const description = 'ü'.repeat(16_384);
    const { timestamp, hash, filename } = await ingestFile(t.app, 'x', 'a.txt', {
      tags: tags.join(','),
      description,
    });
    expect(Buffer.byteLength(filename)).toBe(255);
    const sidecar = JSON.parse(
      (await storedContent(t, `.meta/${timestamp}_${hash}.json`))!.toString('utf8'),
    ) as { description: string; hash: string };
    expect(sidecar.description).toBe(description);
    expect(sidecar.hash).toBe(hash);
    const meta = await request(t.app).get(`/api/v1/can/0/asset/${hash}/meta`);
    expect((meta.body as { data: { description: string } }).data.description).toBe(description);
  });

  it('keeps a 16,384-character description in full, in the .meta sidecar', async () => {
    const description = 'ü'.repeat(16_384);
    const { hash, filename } = await ingestFile(t.app, 'x', 'a.txt', { description });
    const meta = await request(t.app).get(`/api/v1/can/0/asset/${hash}/meta`);
    expect((meta.body as { data: { description: string } }).data.description).toBe(description);
    const sidecar = JSON.parse(
      (await storedContent(t, `.meta/${filename}.json`))!.toString('utf8'),
    ) as { description: string; hash: string };
    expect(sidecar.description).toBe(description);
    expect(sidecar.hash).toBe(hash);
    expect(await blobAttributes(t, filename)).toEqual({});
  });

  it('leaves nothing in .tmp after successful ingests', async () => {
    expect(await stagedLeftovers(t)).toEqual([]);
  });
});

describe('file ingest input rules', () => {
  const rejects = async (
    build: (r: request.Test) => request.Test,
    error: string,
    status = 400,
  ): Promise<void> => {
    const filesBefore = await storedAssets(t);
    const rowsBefore = await rowCount(t);
    const res = await build(request(t.app).post(INGEST)).expect(status);
    expect(res.body).toEqual({ status: 'error', error });
    expect(await storedAssets(t)).toEqual(filesBefore);
    expect(await rowCount(t)).toBe(rowsBefore);
    expect(await stagedLeftovers(t)).toEqual([]);
  };

  it('needs a file part', async () => {
    await rejects((r) => r.field('tags', 'a'), 'missing file: exactly one "file" part is required');
  });

  it.each(['gzip', 'br', 'x-unknown'])(
    'refuses a multipart body sent with Content-Encoding %s with 415 and keeps nothing',
    async (encoding) => {
      await rejects(
        (r) =>
          r
            .set('Content-Encoding', encoding)
            .field('tags', 'a')
            .attach('file', Buffer.from('x'), 'a.txt'),
        'unsupported body encoding',
        415,
      );
    },
  );

  it('takes a multipart body sent with Content-Encoding identity', async () => {
    const res = await request(t.app)
      .post(INGEST)
      .set('Content-Encoding', 'identity')
      .attach('file', Buffer.from('plain'), 'a.txt')
      .expect(200);
    const { timestamp, hash } = (res.body as { data: { timestamp: number; hash: string } }).data;
    expect(hash).toBe(expectedHash('plain', timestamp));
  });

  it('refuses a request that is not multipart', async () => {
    await rejects(
      (r) => r.send({ file: 'x' }),
      'missing file: exactly one "file" part is required',
    );
  });

  it.each([
    [
      'a file part cut off before its closing boundary',
      `--B\r\nContent-Disposition: form-data; name="file"; filename="a.txt"\r\n\r\nhello`,
      'B',
      'Unexpected end of form',
    ],
    ['a body that is no multipart at all', 'garbage', 'B', 'Unexpected end of form'],
    ['a multipart type without a boundary', '--B\r\n', undefined, 'Multipart: Boundary not found'],
  ])('answers %s with 400 and keeps nothing', async (_what, body, boundary, detail) => {
    const type = boundary ? `multipart/form-data; boundary=${boundary}` : 'multipart/form-data';
    await rejects(
      (r) => r.set('Content-Type', type).send(body),
      `invalid multipart body: ${detail}`,
    );
  });

  it('refuses two file parts', async () => {
    await rejects(
      (r) => r.attach('file', Buffer.from('a'), 'a.txt').attach('file', Buffer.from('b'), 'b.txt'),
      'too many files: exactly one "file" part is required',
    );
  });

  it('refuses a file under another part name', async () => {
    await rejects(
      (r) => r.attach('other', Buffer.from('a'), 'a.txt'),
      'unexpected multipart part "other"',
    );
  });

  it('refuses a text field it does not know, as the OpenAPI document says', async () => {
    await rejects(
      (r) => r.field('colour', 'red').attach('file', Buffer.from('a'), 'a.txt'),
      'invalid form: unknown field "colour"',
    );
  });

  it('treats an empty mime_type field as absent, like the other text fields', async () => {
    const { hash, timestamp, filename } = await ingestFile(t.app, 'a,b', 'table.csv', {
      mime_type: '',
    });
    expect(filename).toBe(`${timestamp}_${hash}.csv`);
    const meta = await request(t.app).get(`/api/v1/can/0/asset/${hash}/meta`).expect(200);
    expect((meta.body as { data: { mime_type: string } }).data.mime_type).toBe('text/csv');
  });

  it('refuses a mime_type that is not type/subtype', async () => {
    await rejects(
      (r) => r.field('mime_type', 'png').attach('file', Buffer.from('a'), 'a.png'),
      'invalid mime_type: expected a MIME type like type/subtype',
    );
  });

  it('refuses more than 64 tags', async () => {
    const tags = Array.from({ length: 65 }, (_, i) => `t${i}`).join(',');
    await rejects(
      (r) => r.field('tags', tags).attach('file', Buffer.from('a'), 'a.txt'),
      'invalid tags: expected at most 64 tags',
    );
  });

  it('refuses a tag longer than 64 characters', async () => {
    await rejects(
      (r) => r.field('tags', `ok,${'x'.repeat(65)}`).attach('file', Buffer.from('a'), 'a.txt'),
      'invalid tags: expected each tag to have 1-64 characters',
    );
  });

  it('accepts 64 tags of 64 characters', async () => {
    const tags = Array.from({ length: 64 }, (_, i) => `${i}`.padEnd(64, 'y'));
    const { hash } = await ingestFile(t.app, 'x', 'a.txt', { tags: tags.join(',') });
    const meta = await request(t.app).get(`/api/v1/can/0/asset/${hash}/meta`);
    expect((meta.body as { data: { tags: string[] } }).data.tags).toEqual(tags);
  });

  it.each(['human_file_name', 'human_readable_path', 'application', 'user'])(
    'refuses %s over 1,024 characters',
    async (field) => {
      await rejects(
        (r) => r.field(field, 'x'.repeat(1025)).attach('file', Buffer.from('a'), 'a.txt'),
        `invalid ${field}: expected at most 1024 characters`,
      );
    },
  );

  it('refuses a description over 16,384 characters', async () => {
    await rejects(
      (r) => r.field('description', 'x'.repeat(16_385)).attach('file', Buffer.from('a'), 'a.txt'),
      'invalid description: expected at most 16384 characters',
    );
  });

  it.each(['human_file_name', 'human_readable_path', 'application', 'user', 'description'])(
    'refuses %s holding a NUL character, which the index cannot store',
    async (field) => {
      await rejects(
        (r) => r.field(field, 'a\u0000b').attach('file', Buffer.from('a'), 'a.txt'),
        `invalid ${field}: expected text without NUL characters`,
      );
    },
  );

  it('refuses a tag holding a NUL character', async () => {
    await rejects(
      (r) => r.field('tags', 'ok,a\u0000b').attach('file', Buffer.from('a'), 'a.txt'),
      'invalid tags: expected tags without NUL characters',
    );
  });

  it('refuses a field given twice', async () => {
    await rejects(
      (r) => r.field('user', 'a').field('user', 'b').attach('file', Buffer.from('a'), 'a.txt'),
      'invalid user: expected a string',
    );
  });

  it('never uses a human path to build a path on disk', async () => {
    const { filename } = await ingestFile(t.app, 'x', '../../etc/passwd', {
      human_file_name: '../../escape.txt',
      human_readable_path: '../..',
    });
    expect(filename).not.toContain('/');
    expect(await isStored(t, filename)).toBe(true);
  });
});

/** POSTs `pieces` as separate writes a few milliseconds apart, so they arrive apart. */
function postInPieces(
  port: number,
  contentType: string,
  pieces: Buffer[],
): Promise<{ status: number; data: { timestamp: number; hash: string; filename: string } }> {
  return new Promise((resolve, reject) => {
    const req = http.request(
      {
        host: '127.0.0.1',
        port,
        method: 'POST',
        path: INGEST,
        headers: {
          'Content-Type': contentType,
          'Content-Length': String(pieces.reduce((n, p) => n + p.length, 0)),
        },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          const answer = JSON.parse(Buffer.concat(chunks).toString('utf8')) as {
            data: { timestamp: number; hash: string; filename: string };
          };
          resolve({ status: res.statusCode ?? 0, data: answer.data });
        });
      },
    );
    req.on('error', reject);
    req.on('socket', (socket) => socket.setNoDelay(true));
    void (async () => {
      for (const piece of pieces) {
        req.write(piece);
        await new Promise((r) => setTimeout(r, 10));
      }
      req.end();
    })();
  });
}
