import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { listen } from './asset-helpers.js';
import { jsonLines, type CliRun } from './cli-runner.js';
import { createTestApp, type TestApp } from './test-app.js';

const REPO_ROOT = path.resolve(import.meta.dirname, '..', '..', '..');
// pnpm, then the CLI from source through tsx: seconds each under load.
const RUN_TIMEOUT_MS = 90_000;

let t: TestApp;
let server: Awaited<ReturnType<typeof listen>>;
let caller: string;

beforeAll(async () => {
  t = await createTestApp('cli_paths');
  server = await listen(t.app);
  caller = fs.mkdtempSync(path.join(os.tmpdir(), 'asset-cli-caller-'));
});
afterAll(async () => {
  await server.stop();
  await t.close();
  fs.rmSync(caller, { recursive: true, force: true });
});

/** `pnpm --filter asset-store cli <args>` as a person types it, in the folder `caller`. */
function pnpmCli(args: readonly string[]): Promise<CliRun> {
  const inherited = Object.fromEntries(
    Object.entries(process.env).filter(([k]) => !/^(ASSET_STORE|npm_|INIT_CWD)/.test(k)),
  );
  const child = spawn(
    'pnpm',
    ['--silent', '--dir', REPO_ROOT, '--filter', 'asset-store', 'cli', ...args],
    {
      cwd: caller,
      env: { ...inherited, ASSET_STORE_URL: `http://127.0.0.1:${server.port}` },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  let out = '';
  let err = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => (out += chunk));
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (err += chunk));
  return new Promise((resolve, reject) => {
    child.once('error', reject);
    child.once('close', (code) => resolve({ code, out, err }));
  });
}

describe('asset-store CLI through pnpm: paths mean the caller’s folder', () => {
  it(
    'uploads a relative path from the folder pnpm was run in, and get -o writes there, never over a file without --force',
    async () => {
      fs.writeFileSync(path.join(caller, 'note.txt'), 'typed in the caller’s folder');
      const upload = await pnpmCli(['upload', 'note.txt', '--json']);
      expect(upload.code).toBe(0);
      const [line] = jsonLines<{ path: string; status: string; hash: string }>(upload.out);
      expect(line).toMatchObject({ path: 'note.txt', status: 'stored' });
      const rows = await t.index.db
        .selectFrom('asset')
        .select(['hash', 'human_filename'])
        .execute();
      expect(rows).toEqual([{ hash: line!.hash, human_filename: 'note.txt' }]);

      const got = await pnpmCli(['get', line!.hash, '-o', 'copy.txt']);
      expect(got.code).toBe(0);
      expect(fs.readFileSync(path.join(caller, 'copy.txt'), 'utf8')).toBe(
        'typed in the caller’s folder',
      );

      fs.writeFileSync(path.join(caller, 'copy.txt'), 'mine');
      const again = await pnpmCli(['get', line!.hash, '-o', 'copy.txt']);
      expect(again.code).toBe(1);
      expect(again.err).toContain(path.join(caller, 'copy.txt'));
      expect(fs.readFileSync(path.join(caller, 'copy.txt'), 'utf8')).toBe('mine');
      const forced = await pnpmCli(['get', line!.hash, '-o', 'copy.txt', '--force']);
      expect(forced.code).toBe(0);
      expect(fs.readFileSync(path.join(caller, 'copy.txt'), 'utf8')).toBe(
        'typed in the caller’s folder',
      );

      const noFolder = await pnpmCli(['get', line!.hash, '-o', 'no-folder/copy.txt']);
      expect(noFolder).toEqual({
        code: 1,
        out: '',
        err:
          'asset-store: ENOENT: no such file or directory, open ' +
          `'${path.join(caller, 'no-folder', 'copy.txt.part')}'\n`,
      });

      const missing = await pnpmCli(['upload', 'not-here.txt']);
      expect(missing).toEqual({
        code: 2,
        out: '',
        err: `asset-store: no such file or folder: ${path.join(caller, 'not-here.txt')}\n`,
      });
    },
    RUN_TIMEOUT_MS * 5,
  );
});
