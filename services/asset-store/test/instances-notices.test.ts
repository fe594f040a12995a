import fs from 'node:fs';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { testDatabaseMode } from '@svc/testing';
import { waitUntil } from '@svc/testing/service-process';
import { sql } from 'kysely';
import { openIndex, SCHEMA } from '../src/db/database.js';
import { ingest, useInstances, type Instance } from './instance-harness.js';

// Two starts of the whole service through tsx.
const TIMEOUT_MS = 120_000;

const { sandbox, startInstances } = useInstances('asset-store-instances-notices-');

/** The instance's count of files its verifier hashed (`/metrics`). */
async function filesChecked(instance: Instance): Promise<number> {
  const text = await (await fetch(`${instance.base}/metrics`)).text();
  const line = text
    .split('\n')
    .find((l) => l.startsWith('asset_store_verifier_files_checked_total'));
  return Number(line?.split(' ')[1] ?? 0);
}

// Skipped on the embedded database: several instances need a PostgreSQL server.
const onServer = testDatabaseMode() === 'postgres' ? describe : describe.skip;

onServer('two instances on one folder', () => {
  it(
    'do not read each other’s new files again, yet both still check a file changed behind their back',
    async () => {
      const url = (await sandbox.serverDatabaseUrl('asset_instances_notices'))!;
      const index = await openIndex({ kind: 'postgres', url });
      try {
        const [a, b] = (await startInstances(url, 2)) as [Instance, Instance];
        // Each has heard the other say it listens once both connections are up.
        const listeners = async () =>
          (
            await sql<{
              n: number;
            }>`select count(*)::int as n from pg_stat_activity
              where application_name = ${`${SCHEMA} placements`} and datname = current_database()`.execute(
              index.db,
            )
          ).rows[0]!.n;
        await waitUntil(async () => (await listeners()) === 2, 10_000);
        await new Promise((r) => setTimeout(r, 300));
        const [checkedA, checkedB] = [await filesChecked(a), await filesChecked(b)];

        const stored = await Promise.all(
          Array.from({ length: 40 }, (_, i) =>
            ingest(i % 2 ? b.base : a.base, randomBytes(512), `n-${i}.bin`),
          ),
        );
        // Past the watches' debounce (300 ms quiet, 1.5 s at most): checks would be done.
        await new Promise((r) => setTimeout(r, 2_500));
        expect(await filesChecked(a)).toBe(checkedA);
        expect(await filesChecked(b)).toBe(checkedB);

        const changed = stored[0]!;
        fs.writeFileSync(path.join(sandbox.dir, 'assets', changed.filename), 'behind its back');
        await waitUntil(async () => {
          const { rows } = await sql<{
            is_corrupted: boolean;
          }>`select is_corrupted from asset where hash = ${changed.hash}`.execute(index.db);
          return rows[0]!.is_corrupted;
        }, 10_000);
        await new Promise((r) => setTimeout(r, 1_000));
        expect(await filesChecked(a)).toBeGreaterThan(checkedA);
        expect(await filesChecked(b)).toBeGreaterThan(checkedB);
      } finally {
        await index.close();
      }
    },
    TIMEOUT_MS,
  );
});
