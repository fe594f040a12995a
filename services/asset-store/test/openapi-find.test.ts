import { Ajv2020 } from 'ajv/dist/2020.js';
import request from 'supertest';
import { storeAsset } from './factories.js';
import { createTestApp, type TestApp } from './test-app.js';

const TOKEN = 'openapi-token';
const BASE = '/api/v1/can/0';

let t: TestApp;
let ajv: Ajv2020;
let doc: { paths: Record<string, Record<string, unknown>> };
beforeAll(async () => {
  t = await createTestApp('openapi_find', { admin_token: TOKEN });
  doc = (await request(t.app).get('/openapi.json').expect(200)).body as typeof doc;
  ajv = new Ajv2020({ strict: false, allErrors: true });
  ajv.addSchema(doc, 'openapi.json');
}, 60_000);
afterAll(async () => {
  await t.close();
});

const pointer = (s: string) => s.replace(/~/g, '~0').replace(/\//g, '~1');

/** Asserts that a real answer is documented, and that a JSON body matches its schema. */
function expectDocumented(template: string, method: string, res: request.Response): void {
  const operation = doc.paths[template]?.[method] as
    { responses: Record<string, { content?: Record<string, unknown> }> } | undefined;
  if (!operation) throw new Error(`${method} ${template} is not documented`);
  const documented = operation.responses[String(res.status)];
  if (!documented) throw new Error(`${method} ${template} ${res.status} is not documented`);
  const type = String(res.headers['content-type']).split(';')[0]!;
  expect(Object.keys(documented.content ?? {})).toContain(type);
  if (type !== 'application/json') return;
  const validate = ajv.compile({
    $ref: `openapi.json#/paths/${pointer(template)}/${method}/responses/${res.status}/content/application~1json/schema`,
  });
  if (!validate(res.body)) {
    throw new Error(`${method} ${template} ${res.status}: ${ajv.errorsText(validate.errors)}`);
  }
}

describe('the OpenAPI document for list, search, thumbnails and admin', () => {
  it('matches real answers of list and search', async () => {
    await storeAsset(t, 'a', { tags: ['x'], application: 'app', description: 'd' });
    const list = `${BASE}/list`;
    const search = `${BASE}/search`;
    expectDocumented(list, 'get', await request(t.app).get(list));
    expectDocumented(list, 'get', await request(t.app).get(`${list}?limit=0`));
    expectDocumented(search, 'get', await request(t.app).get(`${search}?tags=x`));
    expectDocumented(search, 'get', await request(t.app).get(`${search}?hash=zz`));
  });

  it('matches real answers of the thumbnail endpoint', async () => {
    const template = `${BASE}/asset/{hash}/thumb/{max_width}/{max_height}`;
    const json = await storeAsset(t, '{}', { mime_type: 'application/json', ext: 'json' });
    const bad = await storeAsset(t, 'x', { is_corrupted: true });
    const url = (hash: string, w: number) => `${BASE}/asset/${hash}/thumb/${w}/10`;
    expectDocumented(template, 'get', await request(t.app).get(url(json.row.hash, 10)));
    expectDocumented(template, 'get', await request(t.app).get(url(json.row.hash, 0)));
    expectDocumented(template, 'get', await request(t.app).get(url('f'.repeat(64), 10)));
    expectDocumented(template, 'get', await request(t.app).get(url(bad.row.hash, 10)));
  });

  it('matches real answers of the admin endpoints', async () => {
    const auth = { Authorization: `Bearer ${TOKEN}` };
    const { row } = await storeAsset(t, 'purge me');
    const verify = `${BASE}/admin/verify`;
    const rebuild = `${BASE}/admin/rebuild`;
    const purge = `${BASE}/admin/asset/{hash}`;
    expectDocumented(verify, 'post', await request(t.app).post(verify).set(auth));
    expectDocumented(verify, 'post', await request(t.app).post(verify));
    expectDocumented(rebuild, 'post', await request(t.app).post(`${rebuild}?mode=hard`).set(auth));
    expectDocumented(rebuild, 'post', await request(t.app).post(`${rebuild}?mode=x`).set(auth));
    const target = `${BASE}/admin/asset/${row.hash}`;
    expectDocumented(purge, 'delete', await request(t.app).delete(target).set(auth));
    expectDocumented(purge, 'delete', await request(t.app).delete(target).set(auth));
  });
});
