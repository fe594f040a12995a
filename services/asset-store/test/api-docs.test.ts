import path from 'node:path';
import { apiDocsSuite } from '@svc/testing/api-docs';
import { ARTIFACTS_DIR } from './console-harness.js';
import { createTestApp } from './test-app.js';

apiDocsSuite({
  async start() {
    const t = await createTestApp('api-docs');
    return { handler: t.app, close: () => t.close() };
  },
  screenshot: path.join(ARTIFACTS_DIR, 'api-docs.png'),
  minOperations: 20,
  setupTimeoutMs: 60_000,
});
