import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { freePort, waitUntil } from '@svc/testing/service-process';

const ROOT = path.resolve(import.meta.dirname, '..');
// Both services start from their built `dist` (`pnpm start` builds first; CI's typecheck
// builds it), each loading its database, under whatever load the machine has.
const TIMEOUT_MS = 150_000;

/** A command run in a terminal (`script`), as a person runs it: what it shows, its exit, Ctrl-C. */
interface Terminal {
  screen(): string;
  exited: Promise<number | null>;
  ctrlC(): void;
  kill(): void;
}

/**
 * Runs `command` in a pseudo-terminal from the repository root, with this process's
 * environment less the services' own settings, plus `env`. `exec`: no shell between the
 * terminal and pnpm (service-process.ts says why).
 */
function inTerminal(command: string, env: Record<string, string>): Terminal {
  const inherited = Object.fromEntries(
    Object.entries(process.env).filter(([k]) => !/^(ASSET_STORE|HANDLE_RELAY)_/.test(k)),
  );
  const child = spawn('script', ['-qfec', `exec ${command}`, '/dev/null'], {
    cwd: ROOT,
    env: { ...inherited, ...env },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let screen = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => (screen += chunk));
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (screen += chunk));
  return {
    screen: () => screen,
    exited: new Promise<number | null>((resolve) => child.once('exit', resolve)),
    ctrlC: () => child.stdin.write('\x03'),
    kill: () => child.kill('SIGKILL'),
  };
}

describe('pnpm start (after the build) in a terminal', () => {
  let dir: string;
  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'start-interrupt-'));
  });
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  it(
    'shows both ready lines, the admin token file and readable logs, and ends quietly with exit 0 on Ctrl-C',
    async () => {
      for (const built of [
        'services/asset-store/dist/src/start.cjs',
        'services/handle-relay/dist/src/main.js',
      ]) {
        if (!fs.existsSync(path.join(ROOT, built)))
          throw new Error(`${built} is missing: run pnpm build`);
      }
      const [assets, relay] = [await freePort(), await freePort()];
      fs.mkdirSync(path.join(dir, 'web'));
      fs.writeFileSync(path.join(dir, 'web', 'index.html'), '<!doctype html><html></html>');
      const terminal = inTerminal('pnpm run start:built', {
        ASSET_STORE_LISTEN: `127.0.0.1:${assets}`,
        ASSET_STORE_STORAGE_ROOT: path.join(dir, 'assets'),
        // Not the checkout's services/asset-store/data/admin-token, which the script names.
        ASSET_STORE_ADMIN_TOKEN_FILE: path.join(dir, 'admin-token'),
        HANDLE_RELAY_BIND: `127.0.0.1:${relay}`,
        HANDLE_RELAY_DB: path.join(dir, 'relay'),
        HANDLE_RELAY_VAPID_KEY_PATH: path.join(dir, 'vapid.json'),
        HANDLE_RELAY_LOG_KEY_PATH: path.join(dir, 'log-key.json'),
        HANDLE_RELAY_WEB_DIR: path.join(dir, 'web'),
      });
      try {
        await waitUntil(
          () =>
            Promise.resolve(
              /asset-store ready/.test(terminal.screen()) &&
                /handle-relay ready/.test(terminal.screen()),
            ),
          TIMEOUT_MS - 30_000,
        );
        expect(terminal.screen()).toContain(
          `asset-store ready: http://127.0.0.1:${assets}/ (console: http://127.0.0.1:${assets}/console/, ` +
            `API reference: http://127.0.0.1:${assets}/docs)`,
        );
        expect(terminal.screen()).toContain(
          `handle-relay ready: http://127.0.0.1:${relay}/ (chat app: http://127.0.0.1:${relay}/, ` +
            `API reference: http://127.0.0.1:${relay}/docs)`,
        );
        const tokenFile = path.join(dir, 'admin-token');
        expect(fs.readFileSync(tokenFile, 'utf8')).toMatch(/^[A-Za-z0-9_-]{43}\n$/);
        expect(terminal.screen()).toContain(`asset-store admin token written to ${tokenFile}: `);
        // pnpm pipes the services' output; the start script tells them a person is watching.
        expect(terminal.screen()).not.toContain('{"level"');
        expect(terminal.screen()).toMatch(/INFO.* \(asset-store\): .*listening/);

        terminal.ctrlC();
        expect(await terminal.exited).toBe(0);
        expect(terminal.screen()).toMatch(/INFO.* \(asset-store\): .*stopped/);
        expect(terminal.screen()).toMatch(/INFO.* \(handle-relay\): .*stopped/);
        expect(terminal.screen()).not.toMatch(/ELIFECYCLE|ERR_PNPM|Failed/);
      } finally {
        terminal.kill();
      }
    },
    TIMEOUT_MS,
  );
});

describe('pnpm dev in a terminal', () => {
  let dir: string;
  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'dev-interrupt-'));
  });
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  it(
    'stops a service reloading from its sources gracefully on Ctrl-C: drained, never force-killed, exit 0',
    async () => {
      const port = await freePort();
      // The dev script of one service: the web apps' watchers would rewrite the checkout's
      // web/dist under the browser tests running beside this one.
      const terminal = inTerminal("pnpm --parallel --filter asset-store run '/^dev:server$/'", {
        ASSET_STORE_LISTEN: `127.0.0.1:${port}`,
        ASSET_STORE_STORAGE_ROOT: path.join(dir, 'assets'),
        ASSET_STORE_ADMIN_TOKEN_FILE: path.join(dir, 'admin-token'),
      });
      try {
        await waitUntil(
          () => Promise.resolve(/asset-store ready/.test(terminal.screen())),
          TIMEOUT_MS - 30_000,
        );
        terminal.ctrlC();
        expect(await terminal.exited).toBe(0);
        expect(terminal.screen()).toMatch(/INFO.* \(asset-store\): .*shutting down/);
        expect(terminal.screen()).toMatch(/INFO.* \(asset-store\): .*stopped/);
        expect(terminal.screen()).not.toMatch(/[Kk]illing|ELIFECYCLE|ERR_PNPM/);
        // Stopped whole: its staging folder given back, nothing for the next start to sweep.
        expect(fs.readdirSync(path.join(dir, 'assets', '.tmp'))).toEqual(['uploads']);
      } finally {
        terminal.kill();
      }
    },
    TIMEOUT_MS,
  );
});
