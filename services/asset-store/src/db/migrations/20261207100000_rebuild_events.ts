import { sql, type Kysely } from 'kysely';

/**
 * Issue 45: a hard rebuild's events say what changed, not that everything was made anew.
 *
 * A hard rebuild empties the index (`TRUNCATE`, which fires no row or statement trigger)
 * and indexes every file again. Before this, each file came back as `asset.created` and an
 * asset whose file had gone vanished from the index without an event. Now the rebuild
 * first copies the rows it empties into `asset_rebuild_before` (the state the feed last
 * told). An insert of a row found there is compared with it, as an update would be
 * (`asset.updated`, `asset.trashed`, … only for what differs; nothing when it came back
 * as it was), and its copy is dropped. At the end of a completed rebuild, the copies still
 * there are assets that did not come back: one `asset.purged` each
 * (`asset_rebuild_settle()`). A rebuild cut off by a crash or a cancel leaves its copies
 * for the next one, which completes the comparison.
 *
 * Outside a rebuild the table is empty: an ingest's insert pays one lookup in an empty
 * index per statement.
 */
const RECORD_FIELDS = [
  'mime_type',
  'application',
  'user',
  'tags',
  'description',
  'human_filename',
  'human_path',
  'timestamp',
];

const NOW_MS = `(extract(epoch from clock_timestamp()) * 1000)::bigint`;
const DATA = `to_jsonb(n) - 'path' - 'indexed_at' - 'content_sha256'`;
const MARK = `insert into asset_event_commit (xid) values (pg_current_xact_id()::text)
  on conflict do nothing`;
const FLAG = (f: string) => `(b.row ->> '${f}')::boolean`;
const RECORD_CHANGED = RECORD_FIELDS.map(
  (f) => `b.row -> '${f}' is distinct from to_jsonb(n) -> '${f}'`,
).join(' or ');

/** The insert trigger as the change-feed migration wrote it (for `down`). */
const PLAIN_INSERT = `
  insert into asset_event (type, hash, at, data)
  select 'asset.created', n.hash, ${NOW_MS}, ${DATA} from new_rows n;
  if found then ${MARK}; end if;`;

const INSERT = `
  insert into asset_event (type, hash, at, data)
  select t.type, n.hash, ${NOW_MS}, ${DATA}
  from new_rows n
  left join asset_rebuild_before b on b.hash = n.hash
  cross join lateral (
    select 'asset.created' as type, 0 as k where b.hash is null
    union all select 'asset.updated', 1 where b.hash is not null and (${RECORD_CHANGED})
    union all select case when n.is_trashed then 'asset.trashed' else 'asset.restored' end, 2
      where b.hash is not null and ${FLAG('is_trashed')} <> n.is_trashed
    union all select case when n.is_corrupted then 'asset.corrupted' else 'asset.repaired' end, 3
      where b.hash is not null and ${FLAG('is_corrupted')} <> n.is_corrupted
  ) as t
  order by n.hash, t.k;
  if found then ${MARK}; end if;
  if exists (select from asset_rebuild_before) then
    delete from asset_rebuild_before b using new_rows n where b.hash = n.hash;
  end if;`;

async function insertTrigger(db: Kysely<any>, body: string): Promise<void> {
  await sql`
    create or replace function asset_event_on_insert() returns trigger
    language plpgsql as $$
    begin
      ${sql.raw(body)}
      return null;
    end $$`.execute(db);
}

export async function up(db: Kysely<any>): Promise<void> {
  await sql`create table asset_rebuild_before (hash text primary key, row jsonb not null)`.execute(
    db,
  );
  await insertTrigger(db, INSERT);
  await sql`
    create function asset_rebuild_settle() returns bigint language plpgsql as $$
    declare
      n bigint;
    begin
      with gone as (
        delete from asset_rebuild_before b
        where not exists (select from asset a where a.hash = b.hash)
        returning b.hash
      )
      insert into asset_event (type, hash, at, data)
      select 'asset.purged', g.hash, ${sql.raw(NOW_MS)}, null from gone g order by g.hash;
      get diagnostics n = row_count;
      if n > 0 then ${sql.raw(MARK)}; end if;
      return n;
    end $$`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`drop function asset_rebuild_settle()`.execute(db);
  await insertTrigger(db, PLAIN_INSERT);
  await sql`drop table asset_rebuild_before`.execute(db);
}
