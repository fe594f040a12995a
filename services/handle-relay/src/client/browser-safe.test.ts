import fs from 'node:fs';
import path from 'node:path';

// The client must bundle for browsers as is: no Node built-ins, no Buffer, no process.
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

  it('reaches its own files only through relative imports', () => {
    expect(files.map((f) => path.basename(f))).toEqual(
      expect.arrayContaining(['index.ts', 'keys.ts', 'signing.ts', 'http-client.ts', 'hex.ts']),
    );
    expect(files.map((f) => path.basename(f))).not.toContain('key-file.ts');
  });

  it.each(files.map((f) => [path.basename(f), f]))('%s uses nothing Node-only', (_name, file) => {
    const code = fs
      .readFileSync(file, 'utf8')
      .replace(/\/\*[\s\S]*?\*\//g, '')
      .replace(/\/\/.*$/gm, '');
    expect(code).not.toMatch(/from 'node:|require\(|\bBuffer\b|\bprocess\./);
  });
});
