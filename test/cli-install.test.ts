import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { freePort } from '@svc/testing/service-process';

const ROOT = path.resolve(import.meta.dirname, '..');
// `tsc --build` (up to date: a check of every project) and npm's install.
const TIMEOUT_MS = 240_000;

interface Run {
  code: number | null;
  out: string;
  err: string;
}

/** Runs a command without the environment pnpm or Jest set up for this process. */
function run(command: string, args: readonly string[], cwd: string, env: NodeJS.ProcessEnv = {}) {
  const clean = Object.fromEntries(
    Object.entries(process.env).filter(
      ([k]) => !/^(ASSET_STORE_|HANDLE_RELAY_|npm_|INIT_CWD$)/i.test(k),
    ),
  );
  const child = spawn(command, args, { cwd, env: { ...clean, ...env } });
  let out = '';
  let err = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => (out += chunk));
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (err += chunk));
  return new Promise<Run>((resolve, reject) => {
    child.once('error', reject);
    child.once('close', (code) => resolve({ code, out, err }));
  });
}

const version = (service: string) =>
  (
    JSON.parse(fs.readFileSync(path.join(ROOT, 'services', service, 'package.json'), 'utf8')) as {
      version: string;
    }
  ).version;

describe('pnpm cli:install', () => {
  let prefix: string;
  let caller: string;
  beforeAll(() => {
    prefix = fs.mkdtempSync(path.join(os.tmpdir(), 'cli-install-prefix-'));
    caller = fs.mkdtempSync(path.join(os.tmpdir(), 'cli-install-caller-'));
  });
  afterAll(() => {
    fs.rmSync(prefix, { recursive: true, force: true });
    fs.rmSync(caller, { recursive: true, force: true });
  });

  it(
    'puts asset-store and handle-relay on PATH (npm prefix given), and they run from any folder',
    async () => {
      const installed = await run('pnpm', ['cli:install', '--prefix', prefix], ROOT);
      expect(installed.code).toBe(0);
      const bin = path.join(prefix, 'bin');
      expect(installed.out).toContain(`asset-store and handle-relay are in ${bin}\n`);
      expect(installed.err).not.toMatch(/npm warn/i);
      const onPath = { PATH: `${bin}${path.delimiter}${process.env.PATH}` };

      expect(await run('asset-store', ['--version'], caller, onPath)).toEqual({
        code: 0,
        out: `${version('asset-store')}\n`,
        err: '',
      });
      expect(await run('handle-relay', ['--version'], caller, onPath)).toEqual({
        code: 0,
        out: `${version('handle-relay')}\n`,
        err: '',
      });

      // Errors name the URL and the absolute file they tried.
      const port = await freePort();
      expect(
        await run('asset-store', ['--url', `http://127.0.0.1:${port}`, 'ls'], caller, onPath),
      ).toEqual({
        code: 1,
        out: '',
        err:
          `asset-store: cannot reach the store at http://127.0.0.1:${port} ` +
          `(connect ECONNREFUSED 127.0.0.1:${port})\n`,
      });
      const realCaller = fs.realpathSync(caller);
      expect(await run('handle-relay', ['inbox', 'alice'], caller, onPath)).toEqual({
        code: 1,
        out: '',
        err: `handle-relay: no such file: ${realCaller}/handle-relay.key.json\n`,
      });
      const keygen = await run('handle-relay', ['keygen', '--key', 'me.json'], caller, onPath);
      expect(keygen.code).toBe(0);
      expect(keygen.out).toMatch(
        new RegExp(`^ed25519:[0-9a-f]{64}\\nwrote ${realCaller}/me\\.json\\n$`),
      );
    },
    TIMEOUT_MS,
  );

  it(
    'pnpm --filter handle-relay cli: a relative --key means the folder pnpm was run in',
    async () => {
      const ran = await run(
        'pnpm',
        ['--silent', '--dir', ROOT, '--filter', 'handle-relay', 'cli', 'keygen', '--key', 'k.json'],
        caller,
      );
      expect(ran.code).toBe(0);
      expect(ran.out).toMatch(/\nwrote .*\/k\.json\n$/);
      expect(fs.existsSync(path.join(caller, 'k.json'))).toBe(true);
      expect(fs.existsSync(path.join(ROOT, 'services', 'handle-relay', 'k.json'))).toBe(false);
    },
    TIMEOUT_MS,
  );
});
