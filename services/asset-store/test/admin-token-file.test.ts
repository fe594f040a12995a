import fs from 'node:fs';
import path from 'node:path';
import { freePort, spawnService, waitUntil } from '@svc/testing/service-process';
import { useServiceSandbox } from '@svc/testing/service-sandbox';

const ENTRY = path.resolve(import.meta.dirname, '..', 'src', 'main.ts');
// Each start loads the whole service through tsx; a fresh embedded index adds seconds.
const START_TIMEOUT_MS = 150_000;

const sandbox = useServiceSandbox('asset-store-admin-token-');

const ready = (port: number) =>
  `asset-store ready: http://127.0.0.1:${port}/ (console: http://127.0.0.1:${port}/console/, ` +
  `API reference: http://127.0.0.1:${port}/docs)\n`;

/** Starts the service on `yaml` (plus its port and folder) and waits for its ready line. */
async function start(port: number, yaml: string) {
  const config = sandbox.configFile(
    `storage_root: ./assets\nlisten: 127.0.0.1:${port}\nverify_interval_hours: 0\n${yaml}`,
  );
  const service = spawnService(ENTRY, [config]);
  sandbox.running = service;
  await waitUntil(() => Promise.resolve(service.stderr().includes('ready')), START_TIMEOUT_MS);
  return service;
}

/** The status of `GET /admin/jobs` with that bearer token (none: no header). */
async function jobsStatus(port: number, token?: string): Promise<number> {
  const res = await fetch(`http://127.0.0.1:${port}/api/v1/can/0/admin/jobs`, {
    headers: token === undefined ? {} : { authorization: `Bearer ${token}` },
  });
  await res.arrayBuffer();
  return res.status;
}

describe('admin_token_file: the admin token of a first start', () => {
  it(
    'writes a random token (mode 0600) on the first start, says where and how to use it, and keeps it on the next',
    async () => {
      const port = await freePort();
      const file = path.join(sandbox.dir, 'data', 'admin-token');
      const first = await start(port, 'admin_token_file: ./data/admin-token\n');
      const text = fs.readFileSync(file, 'utf8');
      expect(text).toMatch(/^[A-Za-z0-9_-]{43}\n$/);
      expect(fs.statSync(file).mode & 0o777).toBe(0o600);
      const token = text.trim();
      expect(first.stderr()).toBe(
        `asset-store admin token written to ${file}: send it as \`Authorization: Bearer <token>\`, ` +
          `paste it where the console asks, or \`ASSET_STORE_TOKEN=$(cat ${file}) asset-store jobs\`\n` +
          ready(port),
      );
      expect(await jobsStatus(port, token)).toBe(200);
      expect(await jobsStatus(port, 'not-the-token')).toBe(401);
      expect(await jobsStatus(port)).toBe(401);
      first.child.kill('SIGTERM');
      expect(await first.exited).toEqual({ code: 0, signal: null });

      const second = await start(port, 'admin_token_file: ./data/admin-token\n');
      expect(fs.readFileSync(file, 'utf8')).toBe(text);
      expect(second.stderr()).toMatch(new RegExp(`^asset-store admin token read from ${file}: `));
      expect(await jobsStatus(port, token)).toBe(200);
    },
    START_TIMEOUT_MS,
  );

  it(
    'leaves the file alone when admin_token is set, and admin stays off (403) with neither',
    async () => {
      const port = await freePort();
      const withToken = await start(
        port,
        'admin_token: configured-token\nadmin_token_file: ./data/admin-token\n',
      );
      expect(fs.existsSync(path.join(sandbox.dir, 'data'))).toBe(false);
      expect(withToken.stderr()).toBe(ready(port));
      expect(await jobsStatus(port, 'configured-token')).toBe(200);
      withToken.child.kill('SIGTERM');
      expect(await withToken.exited).toEqual({ code: 0, signal: null });

      await start(port, '');
      expect(await jobsStatus(port, 'configured-token')).toBe(403);
    },
    START_TIMEOUT_MS,
  );
});
