import fs from 'node:fs';
import path from 'node:path';
import { freePort, spawnService, waitUntil } from '@svc/testing/service-process';
import { useServiceSandbox } from '@svc/testing/service-sandbox';
import pino from 'pino';
import { openAssetStorage } from '../src/storage/fs/asset-storage.js';
import { physicalFilename } from '../src/storage/layout.js';

const ENTRY = path.resolve(import.meta.dirname, '..', 'src', 'main.ts');
// Each start loads the whole service through tsx; a fresh embedded database adds seconds.
const TIMEOUT_MS = 150_000;
const TOKEN = 'job-restart-token';
/** Sparse: no disk space, yet hashing them takes far longer than the test. */
const FILE_BYTES = 16 * 2 ** 30;

const sandbox = useServiceSandbox('asset-store-job-restart-');

/** Two large assets as their files describe them; the hashes are made up (the scrub is busy). */
async function placeLargeAssets(root: string): Promise<void> {
  fs.mkdirSync(root, { recursive: true });
  const { attributes } = await openAssetStorage(root, pino({ level: 'silent' }));
  for (let i = 0; i < 2; i++) {
    const timestamp = 1_700_000_000_000 + i;
    const hash = String(i).repeat(64);
    const file = path.join(root, physicalFilename({ timestamp, hash, tags: [], ext: 'bin' }));
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
  }
}

interface JobBody {
  status: string;
  bytes_done: number;
  finished_at: number | null;
  error: string | null;
}

describe('a job across a restart of the service', () => {
  it(
    'shows as failed with the reason once the process that ran it is gone, never as running',
    async () => {
      const root = path.join(sandbox.dir, 'assets');
      const port = await freePort();
      const base = `http://127.0.0.1:${port}/api/v1/can/0/admin`;
      const headers = { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' };
      const url = await sandbox.serverDatabaseUrl('asset_job_restart');
      const config = sandbox.configFile(
        `storage_root: ${root}\nlisten: 127.0.0.1:${port}\nadmin_token: ${TOKEN}\n` +
          `verify_interval_hours: 0\n${url === undefined ? '' : `database_url: ${url}\n`}`,
      );
      sandbox.running = spawnService(ENTRY, [config]);
      // The start-up scrub (of nothing) is over, so the job's scrub has the lane to itself.
      await sandbox.running.waitForLog('scrub finished');
      await placeLargeAssets(root);
      const rebuilt = await fetch(`${base}/rebuild`, { method: 'POST', headers });
      expect(rebuilt.status).toBe(200);
      const started = await fetch(`${base}/jobs`, {
        method: 'POST',
        headers,
        body: JSON.stringify({ kind: 'verify' }),
      });
      expect(started.status).toBe(202);
      const { id } = ((await started.json()) as { data: { id: string } }).data;
      const job = async () => {
        const res = await fetch(`${base}/jobs/${id}`, { headers });
        return ((await res.json()) as { data: JobBody }).data;
      };
      await waitUntil(async () => (await job()).bytes_done > 0, 30_000);
      expect((await job()).status).toBe('running');

      sandbox.running.child.kill('SIGKILL');
      await sandbox.running.exited;
      sandbox.running = spawnService(ENTRY, [config]);
      await sandbox.running.waitForLog('listening');
      const after = await job();
      expect(after).toMatchObject({
        status: 'failed',
        error: 'interrupted: the service restarted',
      });
      expect(after.finished_at).toEqual(expect.any(Number));

      // A job the service stops on SIGTERM is recorded as failed too, with its own reason.
      const second = await fetch(`${base}/jobs`, {
        method: 'POST',
        headers,
        body: JSON.stringify({ kind: 'verify' }),
      });
      const secondId = ((await second.json()) as { data: { id: string } }).data.id;
      sandbox.running.child.kill('SIGTERM');
      expect(await sandbox.running.exited).toEqual({ code: 0, signal: null });
      sandbox.running = spawnService(ENTRY, [config]);
      await sandbox.running.waitForLog('listening');
      const list = await fetch(`${base}/jobs`, { headers });
      const jobs = ((await list.json()) as { data: (JobBody & { id: string })[] }).data;
      expect(jobs.map((j) => [j.id, j.status, j.error])).toEqual([
        [secondId, 'failed', 'interrupted: the service stopped'],
        [id, 'failed', 'interrupted: the service restarted'],
      ]);
    },
    TIMEOUT_MS,
  );
});
