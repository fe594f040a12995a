import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import ts from 'typescript';

/**
 * The process entry, `src/start.cts`, exists to give libuv's pool 16 threads (uploads hold
 * one per fsync). It is compiled here as tsc compiles it (CommonJS, `import()` kept) and
 * run beside a stand-in `main.js` that puts the pool to work and prints the process's
 * thread count; the pool's size is the difference from the same module run as the entry
 * with a pool of 4 set (Node 20 starts an ES module entry's pool before its first line runs,
 * Node 24 does not, so the module's own default says nothing about the entry).
 * Thread counts come from /proc, so this runs on Linux only.
 */
const SOURCE = path.resolve(import.meta.dirname, '..', 'src', 'start.cts');
// Skipped off Linux: the threads are counted in /proc.
const onLinux = process.platform === 'linux' ? it : it.skip;

const STAND_IN = `
import fs from 'node:fs';
process.env.UV_THREADPOOL_SIZE ??= '16';
await Promise.all(Array.from({ length: 64 }, () => fs.promises.stat('.')));
process.stdout.write(String(fs.readdirSync('/proc/self/task').length));
`;

let dir: string;
beforeAll(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'asset-store-entry-'));
  const compiled = ts.transpileModule(fs.readFileSync(SOURCE, 'utf8'), {
    fileName: 'start.cts',
    compilerOptions: { module: ts.ModuleKind.NodeNext, target: ts.ScriptTarget.ES2022 },
  });
  fs.writeFileSync(path.join(dir, 'start.cjs'), compiled.outputText);
  fs.writeFileSync(path.join(dir, 'main.js'), STAND_IN);
  fs.writeFileSync(path.join(dir, 'package.json'), '{ "type": "module" }');
});
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

function threads(entry: string, env: NodeJS.ProcessEnv = {}): number {
  const inherited = { ...process.env };
  delete inherited.UV_THREADPOOL_SIZE;
  const run = spawnSync(process.execPath, [path.join(dir, entry)], {
    env: { ...inherited, ...env },
    encoding: 'utf8',
  });
  expect(run.stderr).toBe('');
  expect(run.status).toBe(0);
  return Number(run.stdout);
}

describe('the process entry', () => {
  onLinux('starts the service with a pool of 16 threads', () => {
    const poolOf4 = threads('main.js', { UV_THREADPOOL_SIZE: '4' });
    expect(threads('start.cjs') - poolOf4).toBe(16 - 4);
  });

  onLinux('keeps a pool size the operator set', () => {
    const poolOf4 = threads('main.js', { UV_THREADPOOL_SIZE: '4' });
    expect(threads('start.cjs', { UV_THREADPOOL_SIZE: '8' }) - poolOf4).toBe(8 - 4);
  });
});
