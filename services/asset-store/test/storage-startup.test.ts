import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createLogger } from '@svc/envelope';
import request from 'supertest';
import { openAssetStorage } from '../src/storage/fs/asset-storage.js';
import { ingestFile } from './asset-helpers.js';
import { createTestApp, useTestApp, variantApp } from './test-app.js';

/** A staging folder locked by `owner`, holding one staged part; answers its path. */
function stagingFolder(
  tmp: string,
  name: string,
  owner: { pid: number; host: string; boot?: string },
): string {
  const dir = path.join(tmp, name);
  fs.mkdirSync(dir);
  fs.writeFileSync(
    path.join(dir, 'service.lock'),
    JSON.stringify({ boot: 'before-a-reboot', token: name, ...owner }),
  );
  fs.writeFileSync(path.join(dir, '1-a.part'), 'half');
  return dir;
}

function bootId(): string {
  try {
    return fs.readFileSync('/proc/sys/kernel/random/boot_id', 'utf8').trim();
  } catch {
    return '';
  }
}

const t = useTestApp('storage_startup');

describe('start-up', () => {
  it('removes the staged uploads of a process that is gone, and creates the dot-folders', async () => {
    const tmp = path.dirname(t.storage.layout.tmp);
    const crashed = stagingFolder(tmp, 'crashed', { pid: 2 ** 31 - 1, host: os.hostname() });
    const rebooted = stagingFolder(tmp, 'rebooted', { pid: process.pid, host: os.hostname() });
    fs.writeFileSync(path.join(tmp, 'loose.part'), 'from an earlier version');
    const storage = await openAssetStorage(t.storageRoot, createLogger('t', 'silent'));
    expect(fs.existsSync(crashed)).toBe(false);
    expect(fs.existsSync(rebooted)).toBe(false);
    expect(fs.existsSync(path.join(tmp, 'loose.part'))).toBe(false);
    expect(fs.readdirSync(storage.layout.tmp)).toEqual(['service.lock']);
    expect(fs.existsSync(storage.layout.meta)).toBe(true);
  });

  it('starts several instances at once over the folders of gone processes: one removes each, none fails', async () => {
    const tmp = path.dirname(t.storage.layout.tmp);
    const before = fs.readdirSync(tmp);
    const crashed = Array.from({ length: 40 }, (_, i) =>
      stagingFolder(tmp, `crashed-${i}`, { pid: 2 ** 31 - 1, host: os.hostname() }),
    );
    const old = Array.from({ length: 40 }, (_, i) => {
      const dir = path.join(tmp, `unlocked-${i}`);
      fs.mkdirSync(dir);
      fs.utimesSync(dir, new Date(0), new Date(0));
      return dir;
    });
    // Each start lists .tmp/ and looks at every folder it found; the others remove them meanwhile.
    const started = await Promise.all(
      Array.from({ length: 4 }, () => openAssetStorage(t.storageRoot, createLogger('t', 'silent'))),
    );
    for (const dir of [...crashed, ...old]) expect(fs.existsSync(dir)).toBe(false);
    expect(fs.readdirSync(tmp).sort()).toEqual(
      [...before, ...started.map((s) => path.basename(s.layout.tmp))].sort(),
    );
  });

  it('keeps the uploads another live instance on the same folder is staging', async () => {
    const tmp = path.dirname(t.storage.layout.tmp);
    const mine = path.join(t.storage.layout.tmp, 'in-flight.part');
    fs.writeFileSync(mine, 'half');
    const live = stagingFolder(tmp, 'live', {
      pid: process.ppid,
      host: os.hostname(),
      boot: bootId(),
    });
    const remote = stagingFolder(tmp, 'remote', { pid: 1, host: 'another-host', boot: 'x' });
    const fresh = path.join(tmp, 'fresh');
    fs.mkdirSync(fresh);
    await openAssetStorage(t.storageRoot, createLogger('t', 'silent'));
    expect(fs.readFileSync(mine, 'utf8')).toBe('half');
    expect(fs.existsSync(path.join(live, '1-a.part'))).toBe(true);
    expect(fs.existsSync(path.join(remote, '1-a.part'))).toBe(true);
    expect(fs.existsSync(fresh)).toBe(true);
    await ingestFile(t.app, 'still works', 'a.txt');
    fs.rmSync(mine);
  });

  it('gives its own staging folder back when it stops, so the next start finds nothing to remove', async () => {
    const root = fs.mkdtempSync(path.join(os.tmpdir(), 'asset-store-stop-'));
    try {
      const first = await createTestApp('staging_stop', { storage_root: root });
      const own = first.storage.layout.tmp;
      await ingestFile(first.app, 'kept', 'k.txt');
      expect(fs.readdirSync(own)).toEqual(['service.lock']);
      await first.close();
      expect(fs.existsSync(own)).toBe(false);
      expect(fs.readdirSync(path.join(root, '.tmp'))).toEqual(['uploads']);
      const infos: unknown[] = [];
      const logger = { info: (fields: unknown) => infos.push(fields), warn: () => undefined };
      const next = await openAssetStorage(root, logger);
      expect(infos).toEqual([]);
      expect(fs.readdirSync(path.join(root, '.tmp')).sort()).toEqual(
        [path.basename(next.layout.tmp), 'uploads'].sort(),
      );
    } finally {
      fs.rmSync(root, { recursive: true, force: true });
    }
  });

  it("names only the other processes' folders it keeps, never its own", async () => {
    const tmp = path.dirname(t.storage.layout.tmp);
    const live = stagingFolder(tmp, 'other', {
      pid: process.ppid,
      host: os.hostname(),
      boot: bootId(),
    });
    const warnings: unknown[] = [];
    const logger = { info: () => undefined, warn: (fields: unknown) => warnings.push(fields) };
    const storage = await openAssetStorage(t.storageRoot, logger);
    const others = fs
      .readdirSync(tmp)
      .filter((name) => name !== path.basename(storage.layout.tmp) && name !== 'uploads');
    const kept = warnings.map((w) => [...(w as { kept: string[] }).kept].sort());
    expect(kept).toEqual([others.sort()]);
    expect(others).toContain('other');
    fs.rmSync(live, { recursive: true });
  });

  it('keeps resumable uploads in .tmp/uploads/, however old their folder (they expire on their own clock)', async () => {
    const uploads = t.storage.layout.uploads;
    fs.writeFileSync(path.join(uploads, 'an-upload'), 'half');
    const longAgo = new Date(Date.now() - 3_600_000);
    fs.utimesSync(uploads, longAgo, longAgo);
    await openAssetStorage(t.storageRoot, createLogger('t', 'silent'));
    expect(fs.readFileSync(path.join(uploads, 'an-upload'), 'utf8')).toBe('half');
    fs.rmSync(path.join(uploads, 'an-upload'));
  });

  it('never reuses a timestamp after a restart, even when the clock went back', async () => {
    const before = await ingestFile(t.app, 'before restart', 'a.txt');
    const { app: restarted } = variantApp(t, { clock: () => 1_000 });
    const after = await ingestFile(restarted, 'after restart', 'a.txt');
    expect(after.timestamp).toBe(before.timestamp + 1);
    await request(restarted).get(`/api/v1/can/0/asset/${after.hash}`).expect(200);
  });
});
