import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import {
  freePort,
  spawnService,
  type ServiceProcess,
  stopIfRunning,
  waitUntil,
} from '@svc/config/service-process';
import { createTestDatabase, testDatabaseMode, type TestDatabase } from '@svc/config/testing';
import pino from 'pino';
import { openAssetStorage } from '../src/storage/asset-storage.js';
import { physicalFilename } from '../src/storage/layout.js';

const ENTRY = path.resolve(import.meta.dirname, '..', 'src', 'main.ts');
// Each start loads the whole service through tsx; a fresh embedded database adds seconds.
const START_TIMEOUT_MS = 90_000;
const TOKEN = 'shutdown-scrub-token';
/** Sparse: no disk space, yet hashing them all takes well over a minute. */
const FILE_BYTES = 16 * 2 ** 30;
const FILES = 4;

let dir: string;
let db: TestDatabase | undefined;
let running: ServiceProcess | undefined;
beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'asset-store-shutdown-'));
});
afterEach(async () => {
  await stopIfRunning(running);
  running = undefined;
  await db?.drop();
  db = undefined;
  fs.rmSync(dir, { recursive: true, force: true });
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

describe('SIGTERM while an admin scrub runs', () => {
  it(
    'answers the scrub with the files checked so far and exits 0 without waiting for the rest',
    async () => {
      const root = path.join(dir, 'assets');
      const port = await freePort();
      const base = `http://127.0.0.1:${port}/api/v1/can/0/admin`;
      const auth = { authorization: `Bearer ${TOKEN}` };
      let databaseLine = '';
      if (testDatabaseMode() === 'postgres') {
        db = await createTestDatabase('asset_shutdown');
        if (db.target.kind === 'postgres') databaseLine = `database_url: ${db.target.url}\n`;
      }
      const config = path.join(dir, 'config.yaml');
      fs.writeFileSync(
        config,
        `storage_root: ${root}\nlisten: 127.0.0.1:${port}\nadmin_token: ${TOKEN}\n` +
          `verify_interval_hours: 0\n${databaseLine}`,
      );
      running = spawnService(ENTRY, [config]);
      // The start-up scrub (of nothing) is over, so only the admin scrub opens files below.
      expect(await running.waitForLog('scrub finished')).toMatchObject({ checked: 0 });
      const files = await placeLargeAssets(root);
      const rebuilt = await fetch(`${base}/rebuild`, { method: 'POST', headers: auth });
      expect(await rebuilt.json()).toEqual({
        status: 'success',
        data: { mode: 'soft', scanned: FILES, indexed: FILES, errors: 0 },
      });

      const scrub = fetch(`${base}/verify`, { method: 'POST', headers: auth });
      // Two files open at once: the watch's check of a new file takes one at most, so the
      // admin scrub is hashing.
      const pid = running.child.pid!;
      await waitUntil(() => Promise.resolve(openedBy(pid, files).length >= 2), 30_000);
      const signalled = Date.now();
      running.child.kill('SIGTERM');

      const res = await scrub;
      expect(res.status).toBe(200);
      expect(await res.json()).toEqual({
        status: 'success',
        data: { checked: 0, corrupted: 0, missing: 0, duration_ms: expect.any(Number) as number },
      });
      expect(await running.exited).toEqual({ code: 0, signal: null });
      // Hashing one of the open files alone takes several seconds; the drain's own bound
      // is 10 s.
      expect(Date.now() - signalled).toBeLessThan(5_000);
      await running.waitForLog('stopped');
      expect(running.stderr()).toBe('');
    },
    START_TIMEOUT_MS,
  );
});
