import path from 'node:path';
import { codeOf, NODE_ONLY, reachableFrom } from '@svc/testing/browser-safe';

// The client must bundle for browsers as is: no Node built-ins, no Buffer, no process.
describe('the client module', () => {
  const files = [...reachableFrom(path.join(import.meta.dirname, 'index.ts'))];

  it('reaches its own files only through relative imports', () => {
    expect(files.map((f) => path.basename(f))).toEqual(
      expect.arrayContaining(['index.ts', 'keys.ts', 'signing.ts', 'http-client.ts', 'hex.ts']),
    );
    expect(files.map((f) => path.basename(f))).not.toContain('key-file.ts');
  });

  it.each(files.map((f) => [path.basename(f), f]))('%s uses nothing Node-only', (_name, file) => {
    const code = codeOf(file);
    expect(code).not.toMatch(NODE_ONLY);
  });
});
