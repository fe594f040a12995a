import { sql, type Kysely } from 'kysely';

/**
 * The change feed's outbox (issue 45). Every change to an `asset` row writes an event row
 * in the same transaction, from statement triggers over the transition tables, so no code
 * path can change the index without its event (ingest's group commit, PATCH, trash,
 * restore, the verifier, purge, rebuild).
 *
 * Positions (the feed's cursor) are given at commit, not at insert: a deferred constraint
 * trigger, once per transaction, locks the one row of `asset_event_head` and numbers the
 * transaction's events after its `last`. That row lock is held until the commit is
 * visible, so positions follow commit order: no reader can ever see position n + 1 while
 * position n is still to come, on any instance, and no number is skipped. Only the
 * commit itself is serialised (not the time a batch waits for its files to be durable).
 */
const CHANNEL = 'asset_store_events';

/** The record fields an `asset.updated` event is about (the rest are the index's own). */
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
/** The row as the event carries it: the record's columns, not where the file is. */
const DATA = (alias: string) => `to_jsonb(${alias}) - 'path' - 'indexed_at' - 'content_sha256'`;
const MARK = `insert into asset_event_commit (xid) values (pg_current_xact_id()::text)
  on conflict do nothing`;

const SOURCES: Record<string, string> = {
  insert: `
    insert into asset_event (type, hash, at, data)
    select 'asset.created', n.hash, ${NOW_MS}, ${DATA('n')} from new_rows n`,
  delete: `
    insert into asset_event (type, hash, at, data)
    select 'asset.purged', o.hash, ${NOW_MS}, null from old_rows o`,
  update: `
    insert into asset_event (type, hash, at, data)
    select t.type, n.hash, ${NOW_MS}, ${DATA('n')}
    from old_rows o join new_rows n on n.hash = o.hash
    cross join lateral (
      select 'asset.updated' as type, 1 as k
        where (${RECORD_FIELDS.map((f) => `o."${f}"`).join(', ')})
          is distinct from (${RECORD_FIELDS.map((f) => `n."${f}"`).join(', ')})
      union all select case when n.is_trashed then 'asset.trashed' else 'asset.restored' end, 2
        where o.is_trashed <> n.is_trashed
      union all select case when n.is_corrupted then 'asset.corrupted' else 'asset.repaired' end, 3
        where o.is_corrupted <> n.is_corrupted
    ) as t
    order by n.hash, t.k`,
};

const TRANSITION: Record<string, string> = {
  insert: 'referencing new table as new_rows',
  delete: 'referencing old table as old_rows',
  update: 'referencing old table as old_rows new table as new_rows',
};

/** This migration's numbering statement (its plan cached by PL/pgSQL: `_event_numbering_plan`). */
export const NUMBER_STATIC = `
      with p as (
        select seq, row_number() over (order by seq) as rn from asset_event where pos is null
      )
      update asset_event e set pos = first + p.rn from p where e.seq = p.seq`;

/** `asset_event_number()`, numbering the committing transaction's events with `numbering`. */
export function numberingFunction(numbering: string): string {
  return `asset_event_number() returns trigger language plpgsql as $$
    declare
      first bigint;
      n bigint;
    begin
      -- The commit-order lock: held until this transaction's commit is visible.
      select last into first from asset_event_head for update;
      ${numbering};
      get diagnostics n = row_count;
      if n > 0 then
        update asset_event_head set last = first + n;
        perform pg_notify('${CHANNEL}', (first + n)::text);
      end if;
      delete from asset_event_commit where xid = new.xid;
      return null;
    end $$`;
}

export async function up(db: Kysely<any>): Promise<void> {
  await sql`
    create table asset_event (
      seq bigint generated always as identity primary key,
      pos bigint unique,
      type text not null,
      hash text not null,
      at bigint not null,
      data jsonb
    )`.execute(db);
  // The events of the transaction being committed: the only ones without a position.
  await sql`create index asset_event_unnumbered on asset_event (seq) where pos is null`.execute(db);
  // Retention deletes by age; positions grow with time, so the oldest are found by `at`.
  await sql`create index asset_event_at on asset_event (at)`.execute(db);
  await sql`
    create table asset_event_head (
      one boolean primary key default true check (one),
      last bigint not null default 0,
      pruned_through bigint not null default 0
    )`.execute(db);
  await sql`insert into asset_event_head default values`.execute(db);
  // One row per transaction with events, for the time of its commit: fires the numbering once.
  await sql`create table asset_event_commit (xid text primary key)`.execute(db);

  for (const [event, source] of Object.entries(SOURCES)) {
    await sql`
      create function ${sql.id(`asset_event_on_${event}`)}() returns trigger
      language plpgsql as $$
      begin
        ${sql.raw(source)};
        if found then ${sql.raw(MARK)}; end if;
        return null;
      end $$`.execute(db);
    await sql`
      create trigger ${sql.id(`asset_event_${event}`)} after ${sql.raw(event)} on asset
      ${sql.raw(TRANSITION[event]!)}
      for each statement execute function ${sql.id(`asset_event_on_${event}`)}()`.execute(db);
  }

  await sql`create function ${sql.raw(numberingFunction(NUMBER_STATIC))}`.execute(db);
  await sql`
    create constraint trigger asset_event_number after insert on asset_event_commit
    deferrable initially deferred
    for each row execute function asset_event_number()`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  for (const event of Object.keys(SOURCES)) {
    await sql`drop trigger ${sql.id(`asset_event_${event}`)} on asset`.execute(db);
    await sql`drop function ${sql.id(`asset_event_on_${event}`)}()`.execute(db);
  }
  await sql`drop table asset_event_commit`.execute(db);
  await sql`drop function asset_event_number()`.execute(db);
  await sql`drop table asset_event_head`.execute(db);
  await sql`drop table asset_event`.execute(db);
}
