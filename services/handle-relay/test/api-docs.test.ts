import http, { type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { visitApiDocs } from '@svc/testing/api-docs';
import { describeInBrowser } from '@svc/testing/browser';
import { ARTIFACTS_DIR } from './web-harness.js';
import { createTestApp, SETUP_TIMEOUT_MS, type TestApp } from './test-app.js';

let t: TestApp;
let server: Server;
let baseUrl: string;
beforeAll(async () => {
  t = await createTestApp('api-docs');
  server = await new Promise<Server>((resolve) => {
    const s = http.createServer(t.app).listen(0, '127.0.0.1', () => resolve(s));
  });
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}, SETUP_TIMEOUT_MS);
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
  await t.close();
});

it('/openapi.json declares the Apache-2.0 licence', async () => {
  const doc = (await (await fetch(`${baseUrl}/openapi.json`)).json()) as { info: unknown };
  expect(doc.info).toMatchObject({ license: { name: 'Apache-2.0', identifier: 'Apache-2.0' } });
});

describeInBrowser()('GET /docs in Chromium', () => {
  it('lists every operation of /openapi.json, from this origin only, without a console error', async () => {
    const visit = await visitApiDocs(baseUrl, path.join(ARTIFACTS_DIR, 'api-docs.png'));
    expect(visit.status).toBe(200);
    expect(visit.headers['content-security-policy']).toMatch(/^default-src 'self';/);
    expect(visit.headers['x-content-type-options']).toBe('nosniff');
    expect(visit.headers['referrer-policy']).toBe('no-referrer');
    expect(visit.operations.length).toBeGreaterThan(15);
    expect(visit.missing).toEqual([]);
    expect(visit.consoleErrors).toEqual([]);
    expect(visit.outside).toEqual([]);
  });
});
