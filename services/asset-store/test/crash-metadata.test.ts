import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import {
  waitUntil,
  freePort,
  loadThenKill,
  spawnService,
  type ServiceProcess,
  stopIfRunning,
} from '@svc/testing/service-process';
import { createTestDatabase, testDatabaseMode, type TestDatabase } from '@svc/testing';

const ENTRY = path.resolve(import.meta.dirname, '..', 'src', 'main.ts');
const TIMEOUT_MS = 120_000;
// CI keeps it small; the outside measurement ran 200 per run (CRASH_META_ASSETS=200).
const ASSETS = Number(process.env.CRASH_META_ASSETS ?? 24);
const WORKERS = 6;
const TOKEN = 'crash-token';

interface Meta {
  tags: string[];
  description?: string;
  is_trashed: boolean;
}

let dir: string;
let db: TestDatabase | undefined;
let running: ServiceProcess | undefined;
beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'asset-store-crash-meta-'));
});
afterEach(async () => {
  await stopIfRunning(running);
  running = undefined;
  await db?.drop();
  db = undefined;
  fs.rmSync(dir, { recursive: true, force: true });
});

describe('a service killed (SIGKILL) during concurrent PATCH, trash and restore', () => {
  it(
    'comes back with the acknowledged metadata, and a hard rebuild restores exactly it',
    async () => {
      let databaseLine = '';
      if (testDatabaseMode() === 'postgres') {
        db = await createTestDatabase('asset_crash_meta');
        if (db.target.kind === 'postgres') databaseLine = `database_url: ${db.target.url}\n`;
      }
      const port = await freePort();
      const config = path.join(dir, 'config.yaml');
      fs.writeFileSync(
        config,
        `storage_root: ./assets\nlisten: 127.0.0.1:${port}\nadmin_token: ${TOKEN}\n` +
          `${databaseLine}log_level: warn\nverify_interval_hours: 0\n`,
      );
      const base = `http://127.0.0.1:${port}/api/v1/can/0`;
      const up = () =>
        waitUntil(async () => (await fetch(`http://127.0.0.1:${port}/healthz`)).status === 200);
      running = spawnService(ENTRY, [config]);
      await up();

      const hashes: string[] = [];
      const acknowledged = new Map<string, Meta>();
      for (let i = 0; i < ASSETS; i++) {
        const form = new FormData();
        form.append('tags', 'start');
        form.append('description', 'start');
        form.append('file', new Blob([`asset ${i}`]), `a${i}.txt`);
        const res = await fetch(`${base}/ingest`, { method: 'POST', body: form });
        const { data } = (await res.json()) as { data: { hash: string } };
        hashes.push(data.hash);
        acknowledged.set(data.hash, { tags: ['start'], description: 'start', is_trashed: false });
      }

      // Each op changes one asset; ops in flight at once touch different assets.
      const pending = new Map<string, Meta>();
      const op = async (n: number): Promise<void> => {
        const hash = hashes[n % ASSETS]!;
        const before = acknowledged.get(hash)!;
        let target: Meta;
        let res: Response;
        if (n % 3 === 0) {
          target = { ...before, is_trashed: true };
          pending.set(hash, target);
          res = await fetch(`${base}/asset/${hash}`, { method: 'DELETE' });
        } else if (n % 3 === 1) {
          target = { ...before, is_trashed: false };
          pending.set(hash, target);
          res = await fetch(`${base}/asset/${hash}/restore`, { method: 'POST' });
        } else {
          target = { ...before, tags: [`t${n}`, 'x'], description: `d${n}` };
          pending.set(hash, target);
          res = await fetch(`${base}/asset/${hash}`, {
            method: 'PATCH',
            headers: { 'Content-Type': 'application/json' },
            body: JSON.stringify({ tags: target.tags, description: target.description }),
          });
        }
        if (res.status !== 200) throw new Error(`answered ${res.status}`);
        acknowledged.set(hash, target);
        pending.delete(hash);
      };
      const killAfter = 60 + Math.floor(Math.random() * 120);
      await loadThenKill(running, { workers: WORKERS, killAfter, op });

      running = spawnService(ENTRY, [config]);
      await up();
      const metaOf = async (hash: string): Promise<Meta> => {
        const res = await fetch(`${base}/asset/${hash}/meta`);
        const { data } = (await res.json()) as { data: Meta };
        return { tags: data.tags, description: data.description, is_trashed: data.is_trashed };
      };
      const after = new Map<string, Meta>();
      for (const hash of hashes) {
        const meta = await metaOf(hash);
        after.set(hash, meta);
        // An op cut off by the kill may or may not have committed; nothing else may differ.
        const allowed = [acknowledged.get(hash), pending.get(hash)].filter(Boolean);
        expect(allowed).toContainEqual(meta);
      }

      const rebuilt = await fetch(`${base}/admin/rebuild?mode=hard`, {
        method: 'POST',
        headers: { Authorization: `Bearer ${TOKEN}` },
      });
      expect(rebuilt.status).toBe(200);
      for (const hash of hashes) expect(await metaOf(hash)).toEqual(after.get(hash));
    },
    TIMEOUT_MS,
  );
});
