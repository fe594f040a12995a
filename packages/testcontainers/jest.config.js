import { jestProject } from '../../jest.preset.js';

// Unit tests only; the tests that start containers are `test/*.e2e-spec.ts` (jest.e2e.config.js).
export default jestProject(import.meta.dirname, 'testcontainers');
