import { Ajv2020 } from 'ajv/dist/2020.js';
import request from 'supertest';
import { createTestApp, type TestApp } from './test-app.js';
import { encodeMetadata } from './tus-helpers.js';

let t: TestApp;
let ajv: Ajv2020;
let doc: { paths: Record<string, Record<string, unknown>> };
beforeAll(async () => {
  t = await createTestApp('openapi_uploads', { max_upload_bytes: 100 });
  doc = (await request(t.app).get('/openapi.json').expect(200)).body as typeof doc;
  ajv = new Ajv2020({ strict: false, allErrors: true });
  ajv.addSchema(doc, 'openapi.json');
});
afterAll(async () => {
  await t.close();
});

const UPLOADS = '/api/v1/can/0/uploads';
const ITEM = `${UPLOADS}/{id}`;
const TUS = { 'Tus-Resumable': '1.0.0' };
const pointer = (s: string) => s.replace(/~/g, '~0').replace(/\//g, '~1');

/** Asserts that a real answer is documented, and that a JSON body matches its schema. */
function expectDocumented(template: string, method: string, res: request.Response): void {
  const operation = doc.paths[template]?.[method] as
    { responses: Record<string, { content?: Record<string, unknown> }> } | undefined;
  if (!operation) throw new Error(`${method} ${template} is not documented`);
  const documented = operation.responses[String(res.status)];
  if (!documented) throw new Error(`${method} ${template} ${res.status} is not documented`);
  const type = String(res.headers['content-type']).split(';')[0];
  // A HEAD answer has no body to check.
  if (method === 'head' || type !== 'application/json') return;
  expect(Object.keys(documented.content ?? {})).toContain(type);
  const validate = ajv.compile({
    $ref: `openapi.json#/paths/${pointer(template)}/${method}/responses/${res.status}/content/application~1json/schema`,
  });
  if (!validate(res.body)) {
    throw new Error(`${method} ${template} ${res.status}: ${ajv.errorsText(validate.errors)}`);
  }
}

describe('the OpenAPI document of resumable uploads', () => {
  it('documents every answer of the tus endpoint, errors in the envelope', async () => {
    expectDocumented(UPLOADS, 'options', await request(t.app).options(UPLOADS));
    const created = await request(t.app).post(UPLOADS).set(TUS).set('Upload-Length', '4');
    expect(created.status).toBe(201);
    expectDocumented(UPLOADS, 'post', created);
    const item = String(created.headers.location);
    const patch = (offset: number, body: string, extra: Record<string, string> = {}) =>
      request(t.app)
        .patch(item)
        .set(TUS)
        .set('Upload-Offset', String(offset))
        .set('Content-Type', 'application/offset+octet-stream')
        .set(extra)
        .send(Buffer.from(body));
    expectDocumented(ITEM, 'patch', await patch(0, 'ab'));
    expectDocumented(ITEM, 'patch', await patch(1, 'b'));
    expectDocumented(
      ITEM,
      'patch',
      await patch(2, 'cd', { 'Upload-Checksum': `sha256 ${Buffer.alloc(32).toString('base64')}` }),
    );
    expectDocumented(ITEM, 'head', await request(t.app).head(item).set(TUS));
    const last = await patch(2, 'cd');
    expect(last.status).toBe(204);
    expectDocumented(ITEM, 'patch', last);
    expectDocumented(ITEM, 'delete', await request(t.app).delete(item).set(TUS));
    for (const res of [
      await request(t.app).post(UPLOADS).set(TUS).set('Upload-Length', '101'),
      await request(t.app)
        .post(UPLOADS)
        .set(TUS)
        .set('Upload-Length', '1')
        .set('Upload-Metadata', encodeMetadata({ tags: 'x'.repeat(65) })),
      await request(t.app).post(UPLOADS).set('Upload-Length', '1'),
    ]) {
      expect(res.status).toBeGreaterThanOrEqual(400);
      expectDocumented(UPLOADS, 'post', res);
    }
    const other = await request(t.app).post(UPLOADS).set(TUS).set('Upload-Length', '3');
    const gone = String(other.headers.location);
    expectDocumented(ITEM, 'delete', await request(t.app).delete(gone).set(TUS));
    expectDocumented(ITEM, 'head', await request(t.app).head(gone).set(TUS));
    expectDocumented(ITEM, 'options', await request(t.app).options(gone));
  });
});
