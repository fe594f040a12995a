import { sql } from 'kysely';
import { testDatabaseMode } from '@svc/testing';
import type { DatabaseHandle } from './open-database.js';
import { preparedAs } from './prepared.js';
import { openTestHandle, type Db } from './test-fixture.js';

let handle: DatabaseHandle<Db>;
let close: () => Promise<void>;
beforeAll(async () => {
  ({ handle, close } = await openTestHandle('config_prepared'));
});
afterAll(async () => {
  await close();
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

  // Skipped on PGlite: named server-side prepared statements need a server connection.
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
