import fs from 'node:fs';
import path from 'node:path';
import { freePort, spawnService, waitUntil } from '@svc/testing/service-process';
import {
  sigtermWithRequestInFlight,
  itStopsOnBadConfiguration,
  useServiceSandbox,
} from '@svc/testing/service-sandbox';
import pino from 'pino';
import { openAssetStorage } from '../src/storage/fs/asset-storage.js';
import { physicalFilename } from '../src/storage/layout.js';

const ENTRY = path.resolve(import.meta.dirname, '..', 'src', 'main.ts');

// Each start loads the whole service through tsx; a fresh embedded database adds seconds.
const START_TIMEOUT_MS = 90_000;
const TOKEN = 'shutdown-scrub-token';
/** Sparse: no disk space, yet hashing them all takes well over a minute. */
const FILE_BYTES = 16 * 2 ** 30;
const FILES = 4;

const sandbox = useServiceSandbox('asset-store-startup-');

/** The one line the service prints on stderr once it serves (start-output.test.ts). */
const readyLine = (port: number) =>
  `asset-store ready: http://127.0.0.1:${port}/ (console: http://127.0.0.1:${port}/console/, ` +
  `API reference: http://127.0.0.1:${port}/docs)\n`;

describe('asset-store start-up with a bad configuration', () => {
  const cases = [
    {
      yaml: '',
      env: { ASSET_STORE_STORAG_ROOT: '/tmp/x' },
      problem: 'ASSET_STORE_STORAG_ROOT: unknown setting',
    },
    { yaml: 'storage_rot: ./x\n', env: {}, problem: 'storage_rot: unknown key' },
    {
      yaml: '',
      env: { ASSET_STORE_MAX_UPLOAD_BYTES: 'lots' },
      problem: 'max_upload_bytes: Invalid input: expected number, received string',
    },
    {
      // A typo in the file's name must not start an open, empty service on defaults.
      yaml: null,
      env: {},
      problem: (file: string) =>
        `${file}: no such file (a config file named on the command line must exist)`,
    },
  ];

  itStopsOnBadConfiguration(sandbox, 'asset-store', ENTRY, cases, START_TIMEOUT_MS);
});

/**
 * Large assets as the files alone describe them: content and attributes, which a rebuild
 * indexes without reading the content. The stored hashes are made up: the scrub only has
 * to be busy, not to find them intact.
 */
async function placeLargeAssets(root: string): Promise<string[]> {
  const { attributes } = await openAssetStorage(root, pino({ level: 'silent' }));
  const files: string[] = [];
  for (let i = 0; i < FILES; i++) {
    const timestamp = 1_700_000_000_000 + i;
    const hash = String(i).repeat(64);
    const name = physicalFilename({ timestamp, hash, tags: [], ext: 'bin' });
    const file = path.join(root, name);
    fs.closeSync(fs.openSync(file, 'w'));
    fs.truncateSync(file, FILE_BYTES);
    await attributes.write(file, {
      hash,
      timestamp,
      mime_type: 'application/octet-stream',
      tags: [],
      is_trashed: false,
      is_corrupted: false,
    });
    files.push(file);
  }
  return files;
}

/** Which of `files` the process has open right now (Linux). */
function openedBy(pid: number, files: string[]): string[] {
  const fdDir = `/proc/${pid}/fd`;
  const open = new Set<string>();
  for (const fd of fs.readdirSync(fdDir)) {
    try {
      open.add(fs.readlinkSync(path.join(fdDir, fd)));
    } catch {
      // Closed between the listing and the look.
    }
  }
  return files.filter((f) => open.has(f));
}

describe('asset-store start-up with a good configuration', () => {
  /** The config line of a fresh database on the test server; none for the embedded one. */
  async function databaseLine(label: string): Promise<string> {
    const url = await sandbox.serverDatabaseUrl(label);
    return url === undefined ? '' : `database_url: ${url}\n`;
  }

  it(
    'serves health, lets a slow in-flight request finish on SIGTERM, then exits 0',
    async () => {
      const port = await freePort();
      // Relative storage_root: resolved against the config file's folder.
      const file = sandbox.configFile(
        `storage_root: ./assets\nlisten: 127.0.0.1:${port}\n${await databaseLine('asset_startup')}`,
      );
      sandbox.running = spawnService(ENTRY, [file]);
      await sandbox.running.waitForLog('listening');
      expect(fs.existsSync(path.join(sandbox.dir, 'assets'))).toBe(true);

      const res = await fetch(`http://127.0.0.1:${port}/healthz`);
      expect(res.status).toBe(200);
      expect(await res.json()).toEqual({
        status: 'success',
        data: { status: 'ok', version: expect.any(String) as string },
      });

      const drain = await sigtermWithRequestInFlight(sandbox.running, port, '/healthz');
      expect(drain.first).toMatch(/^HTTP\/1\.1 200 /);
      expect(drain.newConnection).toBe('ECONNREFUSED');
      expect(drain.exitCodeWhileDraining).toBeNull();
      expect(drain.second).toMatch(/^HTTP\/1\.1 200 /);
      expect(drain.second).toMatch(/\r\nConnection: close\r\n/i);
      expect(drain.second).toContain('"status":"ok"');

      expect(await sandbox.running.exited).toEqual({ code: 0, signal: null });
      await sandbox.running.waitForLog('stopped');
      expect(sandbox.running.stderr()).toBe(readyLine(port));
    },
    START_TIMEOUT_MS,
  );

  it(
    'on SIGTERM, answers an admin scrub with the files checked so far and exits 0 at once',
    async () => {
      const root = path.join(sandbox.dir, 'assets');
      const port = await freePort();
      const base = `http://127.0.0.1:${port}/api/v1/can/0/admin`;
      const auth = { authorization: `Bearer ${TOKEN}` };
      const config = sandbox.configFile(
        `storage_root: ${root}\nlisten: 127.0.0.1:${port}\nadmin_token: ${TOKEN}\n` +
          `verify_interval_hours: 0\n${await databaseLine('asset_shutdown')}`,
      );
      sandbox.running = spawnService(ENTRY, [config]);
      // The start-up scrub (of nothing) is over, so only the admin scrub opens files below.
      expect(await sandbox.running.waitForLog('scrub finished')).toMatchObject({ checked: 0 });
      const files = await placeLargeAssets(root);
      const rebuilt = await fetch(`${base}/rebuild`, { method: 'POST', headers: auth });
      expect(await rebuilt.json()).toEqual({
        status: 'success',
        data: { mode: 'soft', scanned: FILES, indexed: FILES, errors: 0 },
      });

      const scrub = fetch(`${base}/verify`, { method: 'POST', headers: auth });
      // Two files open at once: the watch's check of a new file takes one at most, so the
      // admin scrub is hashing.
      const pid = sandbox.running.child.pid!;
      await waitUntil(() => Promise.resolve(openedBy(pid, files).length >= 2), 30_000);
      const signalled = Date.now();
      sandbox.running.child.kill('SIGTERM');

      const res = await scrub;
      expect(res.status).toBe(200);
      expect(await res.json()).toEqual({
        status: 'success',
        data: { checked: 0, corrupted: 0, missing: 0, duration_ms: expect.any(Number) as number },
      });
      expect(await sandbox.running.exited).toEqual({ code: 0, signal: null });
      // Hashing one of the open files alone takes several seconds; the drain's own bound
      // is 10 s.
      expect(Date.now() - signalled).toBeLessThan(5_000);
      await sandbox.running.waitForLog('stopped');
      expect(sandbox.running.stderr()).toBe(readyLine(port));
    },
    START_TIMEOUT_MS,
  );
});
