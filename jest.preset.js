import path from 'node:path';

const root = import.meta.dirname;

/**
 * One Jest project per workspace package: TypeScript ESM through SWC, workspace
 * packages mapped to their sources so tests never need a build first.
 */
export function jestProject(dir, displayName, extra = {}) {
  return {
    displayName,
    rootDir: dir,
    testEnvironment: 'node',
    extensionsToTreatAsEsm: ['.ts'],
    transform: {
      '^.+\\.ts$': [
        '@swc/jest',
        {
          jsc: { parser: { syntax: 'typescript' }, target: 'es2022' },
          module: { type: 'es6' },
        },
      ],
    },
    moduleNameMapper: {
      '^@svc/config$': path.join(root, 'packages/config/src/index.ts'),
      '^@svc/database$': path.join(root, 'packages/database/src/index.ts'),
      '^@svc/testing$': path.join(root, 'packages/testing/src/index.ts'),
      '^@svc/testing/(.*)$': path.join(root, 'packages/testing/src/$1.ts'),
      '^@svc/envelope$': path.join(root, 'packages/envelope/src/index.ts'),
      '^(\\.{1,2}/.*)\\.js$': '$1',
    },
    testMatch: ['<rootDir>/src/**/*.test.ts', '<rootDir>/test/**/*.test.ts'],
    // Integration tests start databases and apps on a 2-core machine that may be busy;
    // 5 s is too tight for a hook that opens an embedded database.
    testTimeout: 30_000,
    globalSetup: path.join(root, 'packages/testing/jest/global-setup.js'),
    globalTeardown: path.join(root, 'packages/testing/jest/global-teardown.js'),
    ...extra,
  };
}
