import { unfinishedRequest } from '@svc/testing/raw-connection';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { waitUntil, freePort, loadThenKill, spawnService } from '@svc/testing/service-process';
import { useServiceSandbox } from '@svc/testing/service-sandbox';

/** Staged uploads anywhere under `.tmp/` (every process stages in a folder of its own). */
function stagedParts(root: string): string[] {
  const tmp = path.join(root, '.tmp');
  return fs
    .readdirSync(tmp, { recursive: true, encoding: 'utf8' })
    .filter((name) => name.endsWith('.part'));
}

const ENTRY = path.resolve(import.meta.dirname, '..', 'src', 'main.ts');
// Two starts of the whole service through tsx, and a few hundred ingests between them.
const TIMEOUT_MS = 120_000;
const WORKERS = 8;
const ACKNOWLEDGED_BEFORE_KILL = 120;

interface Acknowledged {
  hash: string;
  timestamp: number;
  content: Buffer;
}

const sandbox = useServiceSandbox('asset-store-crash-');

async function ingest(base: string, i: number): Promise<Acknowledged> {
  const content = randomBytes(512 + (i % 64) * 128);
  const form = new FormData();
  form.append('tags', 'crash');
  form.append('file', new Blob([content]), `f${i}.bin`);
  const res = await fetch(`${base}/api/v1/can/0/ingest`, { method: 'POST', body: form });
  if (res.status !== 200) throw new Error(`ingest answered ${res.status}: ${await res.text()}`);
  const { data } = (await res.json()) as { data: { hash: string; timestamp: number } };
  return { hash: data.hash, timestamp: data.timestamp, content };
}

describe('a service killed (SIGKILL) in the middle of concurrent ingests', () => {
  it(
    'still has every acknowledged asset after a restart, no staged leftovers and no unindexed file',
    async () => {
      // A server database outlives the killed process; the embedded one (the default) is
      // killed with it and must recover on its own.
      const url = await sandbox.serverDatabaseUrl('asset_crash');
      const databaseLine = url === undefined ? '' : `database_url: ${url}\n`;
      const port = await freePort();
      const config = sandbox.configFile(
        `storage_root: ./assets\nlisten: 127.0.0.1:${port}\n${databaseLine}` + 'log_level: warn\n',
      );
      const base = `http://127.0.0.1:${port}`;
      const waitUntilUp = () =>
        waitUntil(async () => (await fetch(`${base}/healthz`)).status === 200);
      sandbox.running = spawnService(ENTRY, [config]);
      await waitUntilUp();

      // An upload still arriving when the kill lands, whatever the timing of the load: past
      // the 64 KiB gathered in memory, so its staged file exists by then.
      const root = path.join(sandbox.dir, 'assets');
      const boundary = 'unfinished';
      const unfinished = await unfinishedRequest(
        port,
        'POST /api/v1/can/0/ingest HTTP/1.1\r\nHost: 127.0.0.1\r\n' +
          `Content-Type: multipart/form-data; boundary=${boundary}\r\n` +
          `Content-Length: ${1 << 20}\r\n\r\n`,
        `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="slow.bin"\r\n\r\n` +
          'x'.repeat(100 * 1024),
      );
      await waitUntil(() => Promise.resolve(stagedParts(root).length > 0));

      const victim = sandbox.running;
      const { acknowledged } = await loadThenKill(victim, {
        workers: WORKERS,
        killAfter: ACKNOWLEDGED_BEFORE_KILL,
        op: (n) => ingest(base, n),
      });
      expect(victim.child.signalCode).toBe('SIGKILL');
      expect(await unfinished.cutOff).toBe(true);

      sandbox.running = spawnService(ENTRY, [config]);
      await waitUntilUp();
      expect(stagedParts(root)).toEqual([]);
      for (const asset of acknowledged) {
        const download = await fetch(`${base}/api/v1/can/0/asset/${asset.hash}`);
        expect(download.status).toBe(200);
        expect(Buffer.from(await download.arrayBuffer()).equals(asset.content)).toBe(true);
        const meta = await fetch(`${base}/api/v1/can/0/asset/${asset.hash}/meta`);
        expect(await meta.json()).toEqual({
          status: 'success',
          data: {
            hash: asset.hash,
            timestamp: asset.timestamp,
            mime_type: 'application/octet-stream',
            tags: ['crash'],
            is_trashed: false,
            is_corrupted: false,
            size: asset.content.length,
            width: null,
            height: null,
            taken_at: null,
          },
        });
      }
      // Files and rows match one to one: no row names a missing file (the folder fsync
      // precedes every commit), and the file of an ingest cut off before its commit was
      // indexed at the restart.
      const listed = await fetch(
        `${base}/api/v1/can/0/list?limit=1000&include_trashed=true&include_corrupted=true`,
      );
      const { data } = (await listed.json()) as { data: { items: { hash: string }[] } };
      expect(data.items.length).toBeGreaterThanOrEqual(acknowledged.length);
      expect(data.items.map((item) => item.hash).sort()).toEqual(
        fs
          .readdirSync(root)
          .filter((name) => !name.startsWith('.'))
          .map((name) => name.split('_')[1])
          .sort(),
      );
    },
    TIMEOUT_MS,
  );
});
