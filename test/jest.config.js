import { jestProject } from '../jest.preset.js';

/** Checks of the repository itself (compose file, container setup) rather than of one package. */
export default jestProject(import.meta.dirname, 'repo', {
  testMatch: ['<rootDir>/**/*.test.ts'],
});
