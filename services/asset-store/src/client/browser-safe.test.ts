import fs from 'node:fs';
import path from 'node:path';

// The client must bundle for browsers as is (the console does): no Node built-ins, no
// Buffer, no process, and nothing of the server's.
function reachableFrom(entry: string, seen = new Set<string>()): Set<string> {
  if (seen.has(entry)) return seen;
  seen.add(entry);
  const source = fs.readFileSync(entry, 'utf8');
  for (const m of source.matchAll(/from '(\.[^']+)\.js'/g)) {
    reachableFrom(path.join(path.dirname(entry), `${m[1]}.ts`), seen);
  }
  return seen;
}

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
    const code = fs
      .readFileSync(file, 'utf8')
      .replace(/\/\*[\s\S]*?\*\//g, '')
      .replace(/\/\/.*$/gm, '');
    expect(code).not.toMatch(/from 'node:|require\(|\bBuffer\b|\bprocess\./);
    // Packages: openapi-fetch only (it runs in browsers and Node alike).
    for (const m of code.matchAll(/from '([^'.][^']*)'/g)) expect(m[1]).toBe('openapi-fetch');
  });
});
