import { CompiledQuery, sql } from 'kysely';
import { testDatabaseMode } from '@svc/testing';
import type { DatabaseHandle } from './open-database.js';
import { openTestHandle, SCHEMA, type Db } from './test-fixture.js';

let handle: DatabaseHandle<Db>;
let close: () => Promise<void>;
beforeAll(async () => {
  ({ handle, close } = await openTestHandle('config_pipelined'));
});
afterAll(async () => {
  await close();
});

// Skipped on PGlite: pipelining is a property of a server connection.
const onServer = testDatabaseMode() === 'postgres' ? describe : describe.skip;
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
