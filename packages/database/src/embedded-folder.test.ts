import { spawn, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { sql } from 'kysely';
import { migrateToLatest } from './migrate.js';
import { openDatabase, type DatabaseHandle } from './open-database.js';
import { migrations, SCHEMA, type Db } from './test-fixture.js';

describe('the embedded database in a folder', () => {
  let dir: string;
  let embedded: DatabaseHandle<Db> | undefined;
  // One folder initialised once and copied into each test's folder: PGlite's initdb, with
  // every file flushed, took 15-25 s per test on a busy machine; what is tested here is the
  // folder's lock and the flushes, not initdb.
  let initialised: string;
  beforeAll(async () => {
    initialised = fs.mkdtempSync(path.join(os.tmpdir(), 'config-durable-initialised-'));
    await (await openDatabase<Db>({ kind: 'pglite', dataDir: initialised }, SCHEMA)).close();
  }, 120_000);
  afterAll(() => fs.rmSync(initialised, { recursive: true, force: true }));
  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'config-durable-'));
    fs.cpSync(initialised, dir, { recursive: true });
  });
  afterEach(async () => {
    await embedded?.close();
    embedded = undefined;
    fs.rmSync(dir, { recursive: true, force: true });
  });

  const lockFile = () => path.join(dir, 'service.lock');
  const lockHolder = () => (JSON.parse(fs.readFileSync(lockFile(), 'utf8')) as { pid: number }).pid;
  /** A lock as another process would have left it. */
  function writeLock(
    owner: { pid?: number; host?: string; boot?: string; token?: string },
    folder = dir,
  ): void {
    const boot = fs.existsSync('/proc/sys/kernel/random/boot_id')
      ? fs.readFileSync('/proc/sys/kernel/random/boot_id', 'utf8').trim()
      : '';
    fs.writeFileSync(
      path.join(folder, 'service.lock'),
      JSON.stringify({ pid: 1, host: os.hostname(), boot, token: 'theirs', ...owner }),
    );
  }

  it('refuses a folder another handle holds, and opens it once that one closed', async () => {
    embedded = await openDatabase<Db>({ kind: 'pglite', dataDir: dir }, SCHEMA);
    await expect(openDatabase<Db>({ kind: 'pglite', dataDir: dir }, SCHEMA)).rejects.toThrow(
      `the database folder ${dir} is in use by process ${process.pid} `,
    );
    expect(lockHolder()).toBe(process.pid);
    await embedded.close();
    expect(fs.existsSync(lockFile())).toBe(false);
    embedded = await openDatabase<Db>({ kind: 'pglite', dataDir: dir }, SCHEMA);
    expect(await embedded.ping()).toBe(true);
  });

  it('refuses a folder a live process holds, and takes over the lock of one that is gone', async () => {
    const holder = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 60_000)']);
    try {
      writeLock({ pid: holder.pid });
      await expect(openDatabase<Db>({ kind: 'pglite', dataDir: dir }, SCHEMA)).rejects.toThrow(
        `the database folder ${dir} is in use by process ${holder.pid} `,
      );
    } finally {
      holder.kill('SIGKILL');
    }
    writeLock({ pid: spawnSync(process.execPath, ['-e', '']).pid });
    embedded = await openDatabase<Db>({ kind: 'pglite', dataDir: dir }, SCHEMA);
    expect(lockHolder()).toBe(process.pid);
  });

  it('never takes over a lock written on another host, and does one written before a reboot', async () => {
    writeLock({ pid: process.pid, host: 'elsewhere' });
    await expect(openDatabase<Db>({ kind: 'pglite', dataDir: dir }, SCHEMA)).rejects.toThrow(
      `the database folder ${dir} is in use by process ${process.pid} on host elsewhere ` +
        `(if that process is gone, delete ${lockFile()})`,
    );
    // A pid that runs now, in a lock from an earlier boot: that process is not the holder.
    writeLock({ pid: process.pid, boot: 'an-earlier-boot' });
    embedded = await openDatabase<Db>({ kind: 'pglite', dataDir: dir }, SCHEMA);
    expect(lockHolder()).toBe(process.pid);
  });

  it('lets exactly one of several processes starting together take over a stale lock', async () => {
    // Each child tries one lock per round, all at the round's instant, and holds what it
    // takes until every child is done, so each round's lock is stale or held by a live
    // process, and a child that starts late finds the winners still there.
    const rounds = Array.from({ length: 20 }, (_, i) => path.join(dir, `round-${i}`));
    const stalePid = spawnSync(process.execPath, ['-e', '']).pid;
    for (const round of rounds) {
      fs.mkdirSync(round);
      writeLock({ pid: stalePid, token: 'stale' }, round);
    }
    const start = Date.now() + 2_000;
    const child = `
      import { lockFolder } from ${JSON.stringify(path.join(import.meta.dirname, 'folder-lock.ts'))};
      const rounds = ${JSON.stringify(rounds)};
      let taken = '';
      for (const [i, round] of rounds.entries()) {
        while (Date.now() < ${start} + i * 50) {}
        try { lockFolder(round); taken += 'W'; } catch { taken += '-'; }
      }
      process.stdout.write(taken + '\\n');
      process.stdin.resume();
    `;
    const children = Array.from({ length: 4 }, () =>
      spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', child], {
        stdio: ['pipe', 'pipe', 'inherit'],
      }),
    );
    const exited = children.map((run) => new Promise((resolve) => run.once('exit', resolve)));
    try {
      const outcomes = await Promise.all(
        children.map(
          (run) =>
            new Promise<string>((resolve) => {
              let out = '';
              run.stdout.setEncoding('utf8').on('data', (chunk: string) => {
                out += chunk;
                if (out.endsWith('\n')) resolve(out.trim());
              });
              void exited[children.indexOf(run)]!.then(() => resolve(out.trim()));
            }),
        ),
      );
      expect(outcomes.map((out) => out.length)).toEqual([20, 20, 20, 20]);
      const winners = rounds.map((_, i) => outcomes.filter((out) => out[i] === 'W').length);
      expect(winners).toEqual(rounds.map(() => 1));
    } finally {
      for (const run of children) run.stdin.end();
      await Promise.all(exited);
    }
  }, 60_000);

  it('clears the break mark of a process that died taking over a stale lock', async () => {
    const gone = spawnSync(process.execPath, ['-e', '']).pid;
    writeLock({ pid: gone, token: 'stale' });
    const stale = fs.readFileSync(lockFile(), 'utf8');
    const mark = `${lockFile()}.break.${createHash('sha256').update(stale).digest('hex').slice(0, 16)}`;
    // What the dead process linked there: its own lock draft, on this host, this boot.
    fs.writeFileSync(mark, JSON.stringify({ ...(JSON.parse(stale) as object), token: 'draft' }));
    embedded = await openDatabase<Db>({ kind: 'pglite', dataDir: dir }, SCHEMA);
    expect(lockHolder()).toBe(process.pid);
    expect(fs.readdirSync(dir).filter((name) => name.startsWith('service.lock'))).toEqual([
      'service.lock',
    ]);
  });

  it('leaves the lock of whoever took the folder over when it closes', async () => {
    embedded = await openDatabase<Db>({ kind: 'pglite', dataDir: dir }, SCHEMA);
    writeLock({ pid: 2, token: 'a later holder' });
    await embedded.close();
    embedded = undefined;
    expect(JSON.parse(fs.readFileSync(lockFile(), 'utf8'))).toMatchObject({
      token: 'a later holder',
    });
  });

  // Skipped off Linux: the flushed files are named through /proc.
  const onLinux = process.platform === 'linux' ? it : it.skip;

  onLinux('flushes its write-ahead log to the disk before a commit returns', async () => {
    embedded = await openDatabase<Db>({ kind: 'pglite', dataDir: dir }, SCHEMA);
    await migrateToLatest(embedded.db, SCHEMA, migrations);
    const settings = await sql<{ fsync: string; wal: string }>`
      select current_setting('fsync') as fsync, current_setting('wal_sync_method') as wal
    `.execute(embedded.db);
    expect(settings.rows).toEqual([{ fsync: 'on', wal: 'fsync' }]);

    const flushed: string[] = [];
    const fsyncSync = fs.fsyncSync;
    fs.fsyncSync = (fd: number) => {
      flushed.push(fs.readlinkSync(`/proc/self/fd/${fd}`));
      fsyncSync(fd);
    };
    try {
      await embedded.db.insertInto('item').values({ id: 1, big: 2 }).execute();
    } finally {
      fs.fsyncSync = fsyncSync;
    }
    expect(flushed).toEqual([expect.stringMatching(/\/pg_wal\/[0-9A-F]{24}$/)]);
  });
});
