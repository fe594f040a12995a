import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import request from 'supertest';
import { ingestFile, UNKNOWN_HASH } from './asset-helpers.js';
import { createTestApp, type TestApp } from './test-app.js';

// ajv-formats is CommonJS; under ESM its function sits on `default`.
const addFormats = addFormatsModule as unknown as typeof addFormatsModule.default;

let t: TestApp;
let ajv: Ajv2020;
let doc: { openapi: string; paths: Record<string, Record<string, unknown>> };
beforeAll(async () => {
  t = await createTestApp('openapi', { max_upload_bytes: 100, max_json_bytes: 1000 });
  doc = (await request(t.app).get('/openapi.json').expect(200)).body as typeof doc;
  ajv = new Ajv2020({ strict: false, allErrors: true });
  addFormats(ajv);
  ajv.addSchema(doc, 'openapi.json');
});
afterAll(async () => {
  await t.close();
});

const BASE = '/api/v1/can/0';
const pointer = (s: string) => s.replace(/~/g, '~0').replace(/\//g, '~1');

/** Asserts that a real response matches what the document promises for it. */
function expectDocumented(template: string, method: string, res: request.Response): void {
  const operation = doc.paths[template]?.[method] as
    { responses: Record<string, { content?: Record<string, unknown> }> } | undefined;
  expect(operation).toBeDefined();
  const documented = operation!.responses[String(res.status)];
  if (!documented) throw new Error(`${method} ${template} ${res.status} is not documented`);
  // A HEAD answer has no body to check.
  if (method === 'head' || !res.headers['content-type']?.startsWith('application/json')) return;
  expect(documented.content?.['application/json']).toBeDefined();
  const validate = ajv.compile({
    $ref: `openapi.json#/paths/${pointer(template)}/${method}/responses/${res.status}/content/application~1json/schema`,
  });
  if (!validate(res.body)) {
    throw new Error(`${method} ${template} ${res.status}: ${ajv.errorsText(validate.errors)}`);
  }
}

describe('the OpenAPI document', () => {
  it('is OpenAPI 3.1 and describes every core endpoint', () => {
    expect(doc.openapi).toBe('3.1.0');
    expect(Object.keys(doc.paths)).toEqual(
      expect.arrayContaining([
        '/healthz',
        `${BASE}/ingest`,
        `${BASE}/ingest/data`,
        `${BASE}/asset/{hash}`,
        `${BASE}/asset/{hash}/meta`,
        `${BASE}/asset/{hash}/restore`,
      ]),
    );
  });

  it('matches real answers of ingest, metadata, PATCH, trash, restore and download', async () => {
    const ingest = await request(t.app)
      .post(`${BASE}/ingest`)
      .field('tags', 'a,b')
      .field('description', 'd')
      .attach('file', Buffer.from('x'), 'x.txt');
    expectDocumented(`${BASE}/ingest`, 'post', ingest);
    const { hash } = (ingest.body as { data: { hash: string } }).data;
    expectDocumented(
      `${BASE}/ingest/data`,
      'post',
      await request(t.app)
        .post(`${BASE}/ingest/data`)
        .send({ data: { a: 1 }, user: 'u' }),
    );
    expectDocumented(
      `${BASE}/asset/{hash}/meta`,
      'get',
      await request(t.app).get(`${BASE}/asset/${hash}/meta`),
    );
    expectDocumented(
      `${BASE}/asset/{hash}`,
      'patch',
      await request(t.app)
        .patch(`${BASE}/asset/${hash}`)
        .send({ tags: ['c'] }),
    );
    expectDocumented(
      `${BASE}/asset/{hash}`,
      'delete',
      await request(t.app).delete(`${BASE}/asset/${hash}`),
    );
    expectDocumented(
      `${BASE}/asset/{hash}/restore`,
      'post',
      await request(t.app).post(`${BASE}/asset/${hash}/restore`),
    );
    expectDocumented(
      `${BASE}/asset/{hash}`,
      'get',
      await request(t.app).get(`${BASE}/asset/${hash}`),
    );
    expectDocumented(
      `${BASE}/asset/{hash}`,
      'get',
      await request(t.app).get(`${BASE}/asset/${hash}`).set('Range', 'bytes=0-0'),
    );
    expectDocumented('/healthz', 'get', await request(t.app).get('/healthz'));
    const head = await request(t.app).head(`${BASE}/asset/${hash}`);
    expect(head.status).toBe(200);
    expectDocumented(`${BASE}/asset/{hash}`, 'head', head);
    expectDocumented(
      `${BASE}/asset/{hash}`,
      'head',
      await request(t.app).head(`${BASE}/asset/${hash}`).set('If-None-Match', `"${hash}"`),
    );
    expectDocumented(
      `${BASE}/asset/{hash}`,
      'head',
      await request(t.app).head(`${BASE}/asset/${UNKNOWN_HASH}`),
    );
  });

  it('matches real error answers', async () => {
    const { hash } = await ingestFile(t.app, 'x', 'x.txt');
    expectDocumented(
      `${BASE}/ingest`,
      'post',
      await request(t.app).post(`${BASE}/ingest`).field('a', 'b'),
    );
    expectDocumented(
      `${BASE}/ingest`,
      'post',
      await request(t.app).post(`${BASE}/ingest`).attach('file', Buffer.alloc(101), 'big.bin'),
    );
    expectDocumented(
      `${BASE}/ingest/data`,
      'post',
      await request(t.app).post(`${BASE}/ingest/data`).send({}),
    );
    expectDocumented(
      `${BASE}/asset/{hash}/meta`,
      'get',
      await request(t.app).get(`${BASE}/asset/${UNKNOWN_HASH}/meta`),
    );
    expectDocumented(
      `${BASE}/asset/{hash}/meta`,
      'get',
      await request(t.app).get(`${BASE}/asset/nothex/meta`),
    );
    expectDocumented(
      `${BASE}/asset/{hash}`,
      'patch',
      await request(t.app).patch(`${BASE}/asset/${hash}`).send({ other: 1 }),
    );
    for (const [template, method, path] of [
      [`${BASE}/ingest/data`, 'post', `${BASE}/ingest/data`],
      [`${BASE}/asset/{hash}`, 'patch', `${BASE}/asset/${hash}`],
    ] as const) {
      const over = await request(t.app)
        [method](path)
        .send({ data: 1, description: 'd'.repeat(2000) });
      expect(over.status).toBe(413);
      expectDocumented(template, method, over);
      const latin1 = await request(t.app)
        [method](path)
        .set('Content-Type', 'application/json; charset=latin1')
        .send('{"data":1}');
      expect(latin1.status).toBe(415);
      expectDocumented(template, method, latin1);
    }
    expectDocumented(
      `${BASE}/asset/{hash}`,
      'get',
      await request(t.app).get(`${BASE}/asset/${hash}`).set('Range', 'bytes=9-10'),
    );
  });

  it('matches real answers of the job endpoints', async () => {
    const token = 'openapi-jobs-token';
    const admin = await createTestApp('openapi_jobs', { admin_token: token });
    try {
      const auth = { Authorization: `Bearer ${token}` };
      const jobs = `${BASE}/admin/jobs`;
      await ingestFile(admin.app, 'a file to verify');
      const started = await request(admin.app).post(jobs).set(auth).send({ kind: 'rebuild' });
      expect(started.status).toBe(202);
      expectDocumented(jobs, 'post', started);
      const conflict = await request(admin.app).post(jobs).set(auth).send({ kind: 'rebuild' });
      expect([202, 409]).toContain(conflict.status);
      expectDocumented(jobs, 'post', conflict);
      expectDocumented(jobs, 'post', await request(admin.app).post(jobs).set(auth).send({}));
      expectDocumented(jobs, 'post', await request(admin.app).post(jobs).send({ kind: 'verify' }));
      const { id } = (started.body as { data: { id: string } }).data;
      const one = `${jobs}/{id}`;
      let job = await request(admin.app).get(`${jobs}/${id}`).set(auth);
      while ((job.body as { data: { status: string } }).data.status === 'running') {
        await new Promise((r) => setTimeout(r, 20));
        job = await request(admin.app).get(`${jobs}/${id}`).set(auth);
      }
      expectDocumented(one, 'get', job);
      expectDocumented(one, 'delete', await request(admin.app).delete(`${jobs}/${id}`).set(auth));
      expectDocumented(one, 'get', await request(admin.app).get(`${jobs}/nope`).set(auth));
      expectDocumented(
        one,
        'get',
        await request(admin.app).get(`${jobs}/00000000-0000-4000-8000-000000000000`).set(auth),
      );
      expectDocumented(jobs, 'get', await request(admin.app).get(jobs).set(auth));
    } finally {
      await admin.close();
    }
  });

  it('catches an answer that does not match (the check can fail)', () => {
    const fake = {
      status: 200,
      headers: { 'content-type': 'application/json' },
      body: { status: 'success', data: 5 },
    };
    expect(() =>
      expectDocumented(`${BASE}/asset/{hash}/meta`, 'get', fake as unknown as request.Response),
    ).toThrow(/must be object/);
  });
});
