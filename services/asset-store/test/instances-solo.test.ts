import { randomBytes } from 'node:crypto';
import { testDatabaseMode } from '@svc/testing';
import { sql } from 'kysely';
import { openIndex, SCHEMA } from '../src/db/database.js';
import { ingest, useInstances } from './instance-harness.js';

// Two starts of the whole service through tsx, and hundreds of ingests.
const TIMEOUT_MS = 180_000;

const { sandbox, startInstances, assetFiles } = useInstances('asset-store-instances-solo-');

// Skipped on the embedded database: several instances need a PostgreSQL server.
const onServer = testDatabaseMode() === 'postgres' ? describe : describe.skip;

onServer('an instance alone on a PostgreSQL database', () => {
  it(
    'issues timestamps from memory, and gives the row back to a second instance without an error',
    async () => {
      const url = (await sandbox.serverDatabaseUrl('asset_instances_solo'))!;
      const index = await openIndex({ kind: 'postgres', url });
      try {
        const [a, b] = await startInstances(url, 2);
        // One at a time: each ingest its own allocation, 200 of which make an instance try.
        const alone: number[] = [];
        for (let i = 0; i < 260; i++) {
          alone.push((await ingest(a!.base, randomBytes(64), `alone-${i}.bin`)).timestamp);
        }
        for (let i = 1; i < alone.length; i++) expect(alone[i]).toBeGreaterThan(alone[i - 1]!);
        // Solo: its connection holds the lock, and the row keeps a reserve ahead of it.
        const holders = await sql<{ n: number }>`select count(*)::int as n from pg_locks l
          join pg_stat_activity s on s.pid = l.pid
          where l.locktype = 'advisory' and l.granted and l.mode = 'ExclusiveLock'
            and s.application_name = ${`${SCHEMA} timestamps`}
            and s.datname = current_database()`.execute(index.db);
        expect(holders.rows[0]!.n).toBe(1);
        const row = await sql<{
          last_issued: number;
        }>`select last_issued from timestamp_allocator`.execute(index.db);
        expect(Number(row.rows[0]!.last_issued)).toBeGreaterThan(Math.max(...alone));

        // Each answered before the next is sent, to either instance: one order for both.
        const sequential: number[] = [];
        for (let i = 0; i < 20; i++) {
          const to = i % 2 === 0 ? b! : a!;
          sequential.push((await ingest(to.base, randomBytes(64), `both-${i}.bin`)).timestamp);
        }
        expect(sequential[0]).toBeGreaterThan(Math.max(...alone));
        for (let i = 1; i < sequential.length; i++) {
          expect(sequential[i]).toBeGreaterThan(sequential[i - 1]!);
        }
        const all = [...alone, ...sequential];
        expect(new Set(all).size).toBe(280);
        expect(assetFiles().length).toBe(280);
        const indexed = await sql<{
          timestamp: number;
        }>`select timestamp from asset order by timestamp`.execute(index.db);
        expect(indexed.rows.map((r) => Number(r.timestamp))).toEqual(all);
      } finally {
        await index.close();
      }
    },
    TIMEOUT_MS,
  );
});
