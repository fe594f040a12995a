import { createHash, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { TcpProxy } from '@svc/testing';
import { freePort, spawnService, waitUntil } from '@svc/testing/service-process';
import { useServiceSandbox } from '@svc/testing/service-sandbox';
import { expectedHash } from './asset-helpers.js';
import { createUpload, headUpload, patchUpload, tusUpload, uploadFolder } from './tus-helpers.js';

const ENTRY = path.resolve(import.meta.dirname, '..', 'src', 'main.ts');
// Up to three starts of the whole service through tsx and 50 MiB through a proxy.
const TIMEOUT_MS = 180_000;
const MIB = 1 << 20;
const API = '/api/v1/can/0';

const sandbox = useServiceSandbox('asset-store-tus-');

/** A service on a free port over the sandbox's storage root and database. */
async function serviceConfig(
  extra = '',
  name = 'assets',
): Promise<{ config: string; port: number; root: string }> {
  const url = await sandbox.serverDatabaseUrl('asset_tus');
  const port = await freePort();
  const config = sandbox.configFile(
    `storage_root: ./${name}\nlisten: 127.0.0.1:${port}\nlog_level: warn\n` +
      (url === undefined ? '' : `database_url: ${url}\n`) +
      extra,
    `${name}.yaml`,
  );
  return { config, port, root: path.join(sandbox.dir, name) };
}

async function start(config: string, port: number): Promise<void> {
  sandbox.running = spawnService(ENTRY, [config]);
  await waitUntil(async () => (await fetch(`http://127.0.0.1:${port}/healthz`)).status === 200);
}

async function kill(): Promise<void> {
  const running = sandbox.running!;
  running.child.kill('SIGKILL');
  await running.exited;
}

describe('a resumable upload over a real service process', () => {
  it(
    'cut off twice, once by a SIGKILL and restart of the service, resumes and ends as one asset',
    async () => {
      const { config, port, root } = await serviceConfig();
      await start(config, port);
      const proxy = await TcpProxy.start('127.0.0.1', port);
      const content = randomBytes(50 * MIB);
      const retries: string[] = [];
      const interruptions: Promise<void>[] = [];
      let phase = 0;
      try {
        const done = await tusUpload(`http://127.0.0.1:${proxy.port}`, content, {
          chunkSize: 8 * MIB,
          // Long enough to outlast a restart of the service on a busy machine.
          retryDelays: Array.from({ length: 120 }, () => 500),
          metadata: { filename: 'big.bin', tags: 'tus', user: 'ann' },
          onRetry: (err) => retries.push(err.message),
          onProgress: (sent) => {
            if (phase === 0 && sent > 12 * MIB) {
              phase = 1;
              interruptions.push(
                (async () => {
                  await proxy.cut();
                  await new Promise((resolve) => setTimeout(resolve, 200));
                  await proxy.restore();
                })(),
              );
            } else if (phase === 1 && sent > 30 * MIB) {
              phase = 2;
              interruptions.push(
                (async () => {
                  await kill();
                  await start(config, port);
                })(),
              );
            }
          },
        });
        await Promise.all(interruptions);
        expect(phase).toBe(2);
        expect(retries.length).toBeGreaterThanOrEqual(2);

        expect(done.hash).toBe(expectedHash(content, done.timestamp));
        const base = `http://127.0.0.1:${port}`;
        const meta = await fetch(`${base}${API}/asset/${done.hash}/meta`);
        expect(await meta.json()).toEqual({
          status: 'success',
          data: {
            hash: done.hash,
            timestamp: done.timestamp,
            mime_type: 'application/octet-stream',
            user: 'ann',
            tags: ['tus'],
            is_trashed: false,
            is_corrupted: false,
            size: content.length,
            width: null,
            height: null,
            taken_at: null,
          },
        });
        const onDisk = fs.readFileSync(path.join(root, `${done.timestamp}_${done.hash}_tus.bin`));
        expect(onDisk.equals(content)).toBe(true);
        // The content digest was not kept across the restart: it was read back from the file.
        const sha256 = createHash('sha256').update(content).digest('hex');
        const found = await fetch(`${base}${API}/search?sha256=${sha256}`);
        const { data } = (await found.json()) as { data: { items: { hash: string }[] } };
        expect(data.items.map((item) => item.hash)).toEqual([done.hash]);
        // One upload only (resumed, never created again), its bytes handed over to the asset.
        const id = done.url.split('/').pop()!;
        expect(uploadFolder(root)).toEqual([`${id}.json`]);
        const list = await fetch(`${base}${API}/list`);
        expect(
          ((await list.json()) as { data: { pagination: { total: number } } }).data.pagination
            .total,
        ).toBe(1);
      } finally {
        await proxy.close();
      }
    },
    TIMEOUT_MS,
  );

  it(
    'keeps unfinished uploads across a restart, and removes expired ones at start and periodically',
    async () => {
      const { config, port, root } = await serviceConfig('upload_expiry_hours: 1\n');
      const base = `http://127.0.0.1:${port}`;
      await start(config, port);
      const old = await createUpload(base, 100);
      expect((await patchUpload(old.url, 0, Buffer.alloc(40, 7))).status).toBe(204);
      const fresh = await createUpload(base, 100);
      expect((await patchUpload(fresh.url, 0, Buffer.alloc(30, 7))).status).toBe(204);
      await kill();
      // The first upload was created two hours ago, as far as its record says.
      const oldId = old.url.split('/').pop()!;
      const infoFile = path.join(root, '.tmp', 'uploads', `${oldId}.json`);
      const info = JSON.parse(fs.readFileSync(infoFile, 'utf8')) as { creation_date: string };
      info.creation_date = new Date(Date.now() - 2 * 3_600_000).toISOString();
      fs.writeFileSync(infoFile, JSON.stringify(info));

      await start(config, port);
      const freshId = fresh.url.split('/').pop()!;
      expect(uploadFolder(root)).toEqual([freshId, `${freshId}.json`].sort());
      expect((await headUpload(old.url)).status).toBe(404);
      const resumed = await headUpload(fresh.url);
      expect([resumed.status, resumed.headers.get('upload-offset')]).toEqual([200, '30']);
      const last = await patchUpload(fresh.url, 30, Buffer.alloc(70, 7));
      expect(last.status).toBe(204);
      expect(last.headers.get('asset-hash')).toBe(
        expectedHash(Buffer.alloc(100, 7), Number(last.headers.get('asset-timestamp'))),
      );
      await kill();

      // Expiring in about two seconds, swept every second.
      const short = await serviceConfig('upload_expiry_hours: 0.0005\n', 'short');
      await start(short.config, short.port);
      const shortBase = `http://127.0.0.1:${short.port}`;
      const leftover = await createUpload(shortBase, 100);
      expect((await patchUpload(leftover.url, 0, Buffer.alloc(10))).status).toBe(204);
      expect(uploadFolder(short.root)).toHaveLength(2);
      await waitUntil(() => Promise.resolve(uploadFolder(short.root).length === 0), 15_000);
      expect((await headUpload(leftover.url)).status).toBe(404);
    },
    TIMEOUT_MS,
  );
});
