import path from 'node:path';
import { codeOf, NODE_ONLY, reachableFrom } from '@svc/testing/browser-safe';

// The client must bundle for browsers as is (the console does): no Node built-ins, no
// Buffer, no process, and nothing of the server's.
describe('the client module', () => {
  const files = [...reachableFrom(path.join(import.meta.dirname, 'index.ts'))];

  it('reaches only its own folder, through relative imports', () => {
    expect(files.map((f) => path.basename(f)).sort()).toEqual([
      'api-types.ts',
      'asset-store-client.ts',
      'errors.ts',
      'index.ts',
      'types.ts',
    ]);
    for (const file of files) expect(path.dirname(file)).toBe(import.meta.dirname);
  });

  it.each(files.map((f) => [path.basename(f), f]))('%s uses nothing Node-only', (_name, file) => {
    const code = codeOf(file);
    expect(code).not.toMatch(NODE_ONLY);
    // Packages: openapi-fetch only (it runs in browsers and Node alike).
    for (const m of code.matchAll(/from '([^'.][^']*)'/g)) expect(m[1]).toBe('openapi-fetch');
  });
});
