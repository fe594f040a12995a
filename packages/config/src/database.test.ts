import { spawn, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { CompiledQuery, sql, type Kysely, type Migration } from 'kysely';
import {
  databaseTarget,
  migrateToLatest,
  openDatabase,
  preparedAs,
  type DatabaseHandle,
} from './database.js';
import { createTestDatabase, testDatabaseMode, type TestDatabase } from './testing.js';

interface Db {
  item: { id: number; big: number };
}

const SCHEMA = 'config_test';

const migrations: Record<string, Migration> = {
  '20260101000000_create_item': {
    up: async (db: Kysely<unknown>) => {
      await sql`create table item (id int primary key, big bigint not null)`.execute(db);
    },
  },
};

let testDb: TestDatabase;
let handle: DatabaseHandle<Db>;
beforeAll(async () => {
  testDb = await createTestDatabase('config_database');
  handle = await openDatabase<Db>(testDb.target, SCHEMA);
  await migrateToLatest(handle.db, SCHEMA, migrations);
});
afterAll(async () => {
  await handle.close();
  await testDb.drop();
});

describe('databaseTarget', () => {
  it('uses a server for a postgres:// or postgresql:// URL', () => {
    expect(databaseTarget('postgres://u@h/db', '/fallback')).toEqual({
      kind: 'postgres',
      url: 'postgres://u@h/db',
    });
    expect(databaseTarget('postgresql://u@h/db', '/fallback').kind).toBe('postgres');
  });

  it('uses an embedded folder otherwise, the fallback when unset', () => {
    expect(databaseTarget('/srv/db', '/fallback')).toEqual({ kind: 'pglite', dataDir: '/srv/db' });
    expect(databaseTarget(undefined, '/fallback')).toEqual({
      kind: 'pglite',
      dataDir: '/fallback',
    });
  });
});

describe('openDatabase and migrateToLatest', () => {
  it("creates the tables and the migration bookkeeping inside the service's schema", async () => {
    const { rows } = await sql<{ table_schema: string; table_name: string }>`
      select table_schema, table_name from information_schema.tables
      where table_schema = ${SCHEMA} order by table_name
    `.execute(handle.db);
    expect(rows).toEqual([
      { table_schema: SCHEMA, table_name: 'item' },
      { table_schema: SCHEMA, table_name: 'kysely_migration' },
      { table_schema: SCHEMA, table_name: 'kysely_migration_lock' },
    ]);
  });

  it('applies each migration once', async () => {
    await migrateToLatest(handle.db, SCHEMA, migrations);
    const { rows } = await sql<{ name: string }>`
      select name from ${sql.table(`${SCHEMA}.kysely_migration`)}
    `.execute(handle.db);
    expect(rows).toEqual([{ name: '20260101000000_create_item' }]);
  });

  it('reads bigint columns as JS numbers', async () => {
    await handle.db.insertInto('item').values({ id: 1, big: 1_795_000_000_000 }).execute();
    const row = await handle.db
      .selectFrom('item')
      .select(['id', 'big'])
      .where('id', '=', 1)
      .executeTakeFirst();
    expect(row).toEqual({ id: 1, big: 1_795_000_000_000 });
  });

  it('runs a transaction as one unit', async () => {
    await expect(
      handle.db.transaction().execute(async (trx) => {
        await trx.insertInto('item').values({ id: 2, big: 2 }).execute();
        await trx.insertInto('item').values({ id: 2, big: 3 }).execute();
      }),
    ).rejects.toMatchObject({ code: '23505' });
    const rows = await handle.db.selectFrom('item').select('id').where('id', '=', 2).execute();
    expect(rows).toEqual([]);
  });

  it('answers a ping', async () => {
    expect(await handle.ping()).toBe(true);
  });

  it('names the migration that failed', async () => {
    const broken: Record<string, Migration> = {
      ...migrations,
      '20260102000000_broken': {
        up: async (db: Kysely<unknown>) => {
          await sql`create table item (id int)`.execute(db);
        },
      },
    };
    await expect(migrateToLatest(handle.db, SCHEMA, broken)).rejects.toThrow(
      /^migration 20260102000000_broken failed: .*item.*already exists/,
    );
  });

  it('refuses a schema name that is not a plain identifier', async () => {
    await expect(openDatabase(testDb.target, 'x; drop table item')).rejects.toThrow(
      'bad schema name',
    );
  });
});

describe('preparedAs', () => {
  const byId = (id: number) => sql<{ id: number; big: number }>`${preparedAs('config_test_item')}
    select id, big from item where id = ${id}
  `;

  it('runs a marked query with its parameters, again and again, as an unmarked one', async () => {
    await handle.db.insertInto('item').values({ id: 10, big: 100 }).execute();
    for (let i = 0; i < 8; i++) {
      expect((await byId(10).execute(handle.db)).rows).toEqual([{ id: 10, big: 100 }]);
      expect((await byId(11).execute(handle.db)).rows).toEqual([]);
    }
  });

  const onServer = testDatabaseMode() === 'postgres' ? it : it.skip;
  onServer('prepares it on the connection under its name, once', async () => {
    await handle.db.connection().execute(async (conn) => {
      await byId(10).execute(conn);
      await byId(12).execute(conn);
      const { rows } = await sql<{ name: string; statement: string }>`
        select name, statement from pg_prepared_statements
      `.execute(conn);
      expect(rows).toEqual([
        { name: 'config_test_item', statement: byId(0).compile(handle.db).sql },
      ]);
    });
  });

  it('refuses a name that is not a plain lowercase identifier', () => {
    expect(() => preparedAs('Item')).toThrow('bad prepared statement name Item');
    expect(() => preparedAs('a */ drop table item; /*')).toThrow('bad prepared statement name');
  });
});

const onServer = testDatabaseMode() === 'postgres' ? describe : describe.skip;
onServer('the pool', () => {
  it('survives the server dropping a connection while it is checked out', async () => {
    const failed = handle.db.connection().execute(async (conn) => {
      const { rows } = await sql<{ pid: number }>`select pg_backend_pid() as pid`.execute(conn);
      await sql`select pg_terminate_backend(${rows[0]!.pid})`.execute(handle.db);
      // The dropped connection's error event arrives while it is still checked out.
      await new Promise((r) => setTimeout(r, 100));
      await sql`select 1`.execute(conn);
    });
    await expect(failed).rejects.toThrow(/terminat|Connection|ECONNRESET/i);
    const { rows } = await sql<{ n: number }>`select 1 as n`.execute(handle.db);
    expect(rows).toEqual([{ n: 1 }]);
  });
});

onServer('the pipelined session', () => {
  const q = (text: string, ...parameters: unknown[]) => CompiledQuery.raw(text, parameters);
  const session = () => handle.pipelined!;
  const backends = async () =>
    (
      await sql<{ pid: number }>`
        select pid from pg_stat_activity
        where datname = current_database() and application_name = ${`${SCHEMA} pipelined`}
      `.execute(handle.db)
    ).rows;

  afterEach(async () => {
    await handle.db.deleteFrom('item').execute();
  });

  it('answers queries sent at once, each in order, all on one named connection', async () => {
    const answers = await Promise.all(
      [1, 2, 3].map((n) => session().query(q('select $1::int as n, pg_backend_pid() as pid', n))),
    );
    expect(answers.map((a) => a.rows[0] as { n: number }).map((r) => r.n)).toEqual([1, 2, 3]);
    const pids = new Set(answers.map((a) => (a.rows[0] as { pid: number }).pid));
    expect([...pids]).toEqual((await backends()).map((b) => b.pid));
  });

  it('fails only the query in error, and the rest of its transaction until a rollback', async () => {
    const pid = () => session().query(q('select pg_backend_pid() as pid'));
    const before = (await pid()).rows;
    const sent = [
      session().query(q('begin')),
      session().query(q('insert into item (id, big) values ($1, $2)', 1, 10)),
      session().query(q('insert into item (id, big) values ($1, $2)', 1, 11)),
      session().query(q('insert into item (id, big) values ($1, $2)', 2, 20)),
      session().query(q('rollback')),
      session().query(q('insert into item (id, big) values ($1, $2)', 3, 30)),
    ];
    const settled = await Promise.allSettled(sent);
    expect(settled.map((s) => s.status)).toEqual([
      'fulfilled',
      'fulfilled',
      'rejected',
      'rejected',
      'fulfilled',
      'fulfilled',
    ]);
    expect(String((settled[2] as PromiseRejectedResult).reason)).toMatch(/duplicate key/);
    expect(String((settled[3] as PromiseRejectedResult).reason)).toMatch(/transaction is aborted/);
    const rows = await handle.db.selectFrom('item').selectAll().execute();
    expect(rows).toEqual([{ id: 3, big: 30 }]);
    // Statement errors leave the connection as it was.
    expect((await pid()).rows).toEqual(before);
  });

  it('opens a fresh connection after the server drops it', async () => {
    await session().query(q('select 1'));
    const [dropped] = await backends();
    await sql`select pg_terminate_backend(${dropped!.pid})`.execute(handle.db);
    // A query may still reach the dying connection and fail; the one after it reconnects.
    await session()
      .query(q('select 1'))
      .catch(() => undefined);
    const { rows } = await session().query(q('select pg_backend_pid() as pid'));
    expect((rows[0] as { pid: number }).pid).not.toBe(dropped!.pid);
    expect(await backends()).toEqual([{ pid: (rows[0] as { pid: number }).pid }]);
  });
});

describe('the embedded database in a folder', () => {
  let dir: string;
  let embedded: DatabaseHandle<Db> | undefined;
  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'config-durable-'));
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

  // The flushed files are named through /proc.
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
