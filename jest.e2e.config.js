import path from 'node:path';
import { jestProject } from './jest.preset.js';

const root = import.meta.dirname;

// Tests against real containers built from this repository's Dockerfiles (`*.e2e-spec.ts`):
// they need a Docker engine, not the test database the main suite's global setup picks.
const e2e = {
  testMatch: ['<rootDir>/**/*.e2e-spec.ts'],
  globalSetup: undefined,
  globalTeardown: undefined,
  testTimeout: 300_000,
};

/** `pnpm test:e2e`: the testcontainers module's tests and the Docker Compose smoke test. */
export default {
  projects: [
    jestProject(path.join(root, 'packages/testcontainers'), 'testcontainers', e2e),
    jestProject(path.join(root, 'test'), 'compose', e2e),
  ],
  testTimeout: 300_000,
};
