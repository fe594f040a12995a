import path from 'node:path';
import { apiDocsSuite } from '@svc/testing/api-docs';
import { ARTIFACTS_DIR } from './web-harness.js';
import { createTestApp, SETUP_TIMEOUT_MS } from './test-app.js';

apiDocsSuite({
  async start() {
    const t = await createTestApp('api-docs');
    return { handler: t.app, close: () => t.close() };
  },
  screenshot: path.join(ARTIFACTS_DIR, 'api-docs.png'),
  minOperations: 15,
  setupTimeoutMs: SETUP_TIMEOUT_MS,
});
