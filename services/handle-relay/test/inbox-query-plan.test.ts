import type { DatabaseHandle } from '@svc/database';
import { createTestDatabase, testDatabaseMode, type TestDatabase } from '@svc/testing';
import { sql, type Kysely } from 'kysely';
import { openStore, type Database } from '../src/db/database.js';
import { latestSeq, listMessagesAfter, readInboxPage } from '../src/messages/message.repository.js';
import { SETUP_TIMEOUT_MS } from './test-app.js';

// The inbox page is a prepared statement, so after a few runs Postgres may plan it once for
// any recipient, since and limit. The (recipient, seq) index must serve it whatever the
// values: a plan that walks the primary key (or the table) filtering on the recipient reads
// every later row for a recipient with few messages. Which plan ran is read from the
// server's scan counters.
const server = testDatabaseMode() === 'postgres';
// Skipped on PGlite: the scan counters and the planner's choices are a server's.
const onServer = server ? describe : describe.skip;

const RARE = 'rare-one';
const BUSY = 'busy-one';
const OTHERS = 40;
/** When the seeded rows were created, in both stored forms. */
const AT = '2026-11-21T10:00:00.000Z';

let testDb: TestDatabase;
let store: DatabaseHandle<Database>;
let rareSeqs: number[];
beforeAll(async () => {
  if (!server) return;
  testDb = await createTestDatabase('relay_inbox_plan');
  store = await openStore(testDb.target);
  const handles = [RARE, BUSY, ...Array.from({ length: OTHERS }, (_, i) => `other-${i}`)];
  await store.db
    .insertInto('handle')
    .values(
      handles.map((handle, i) => ({
        handle,
        primary_key: `ed25519:${String(i).padStart(64, '0')}`,
        registered_at: new Date(),
        proofs: [],
      })),
    )
    .execute();
  const rare = await sql<{ seq: number }>`
    insert into message (recipient, envelope, created_at, created_text)
    select ${RARE}, '{"n":' || g || '}', ${AT}::timestamptz, ${AT} from generate_series(1, 3) g
    returning seq
  `.execute(store.db);
  rareSeqs = rare.rows.map((r) => r.seq);
  await sql`
    insert into message (recipient, envelope, created_at, created_text)
    select case when g % 4 = 0 then 'other-' || (g % ${OTHERS}) else ${BUSY} end, '{}',
      ${AT}::timestamptz, ${AT}
    from generate_series(1, 60000) g
  `.execute(store.db);
  await sql`analyze message`.execute(store.db);
}, SETUP_TIMEOUT_MS);
afterAll(async () => {
  if (!server) return;
  await store.close();
  await testDb.drop();
}, SETUP_TIMEOUT_MS);

interface Scans {
  seqScans: number;
  pkeyScans: number;
  recipientScans: number;
}

async function scans(db: Kysely<Database>): Promise<Scans> {
  await sql`select pg_stat_force_next_flush()`.execute(db);
  const { rows } = await sql<{ seq_scan: number; pkey: number; recipient: number }>`
    select t.seq_scan,
      (select idx_scan from pg_stat_user_indexes where indexrelname = 'message_pkey') as pkey,
      (select idx_scan from pg_stat_user_indexes
        where indexrelname = 'message_recipient_seq_idx') as recipient
    from pg_stat_user_tables t where t.relname = 'message'
  `.execute(db);
  const row = rows[0]!;
  return { seqScans: row.seq_scan, pkeyScans: row.pkey, recipientScans: row.recipient };
}

onServer('the prepared inbox page query', () => {
  it.each(['force_generic_plan', 'force_custom_plan', 'auto'])(
    'reads only the (recipient, seq) index under plan_cache_mode %s',
    async (mode) => {
      await store.db.connection().execute(async (conn) => {
        await sql`select set_config('plan_cache_mode', ${mode}, false)`.execute(conn);
        const before = await scans(conn);
        for (let i = 0; i < 8; i++) {
          expect(await readInboxPage(conn, RARE, 0, 100)).toEqual({
            primary: `ed25519:${'0'.repeat(64)}`,
            messagesJson: expect.stringMatching(/^\{"seq":\d+,"envelope":\{"n":1\}/) as string,
            lastSeq: rareSeqs[2],
            hasMore: false,
          });
          const first = await readInboxPage(conn, RARE, 0, 1);
          expect([first?.lastSeq, first?.hasMore]).toEqual([rareSeqs[0], true]);
          const busy = await readInboxPage(conn, BUSY, 0, 500);
          expect(busy?.hasMore).toBe(true);
        }
        const after = await scans(conn);
        expect(after.seqScans - before.seqScans).toBe(0);
        expect(after.pkeyScans - before.pkeyScans).toBe(0);
        expect(after.recipientScans - before.recipientScans).toBeGreaterThanOrEqual(8 * 3);
        await sql`reset plan_cache_mode`.execute(conn);
      });
    },
  );
});

onServer('the stream replay queries', () => {
  it('read only the (recipient, seq) index for a recipient with few messages', async () => {
    const before = await scans(store.db);
    for (const limit of [1, 100]) {
      const rows = await listMessagesAfter(store.db, RARE, 0, limit);
      expect(rows.map((r) => r.seq)).toEqual(rareSeqs.slice(0, limit));
    }
    expect(await latestSeq(store.db, RARE)).toBe(rareSeqs[2]);
    const after = await scans(store.db);
    expect(after.seqScans - before.seqScans).toBe(0);
    expect(after.pkeyScans - before.pkeyScans).toBe(0);
  });
});
