import { sql, type Kysely } from 'kysely';

/**
 * Every stored message is announced on the `handle_relay_messages` channel by the database
 * itself, inside the inserting transaction: delivered only on commit, in commit order, and
 * with no extra round trip for the sender. Payload (read by `src/pubsub/postgres.pubsub.ts`):
 * `{"h":recipient,"s":seq,"c":created_at,"e":envelope JSON text}` when that stays under
 * 7,000 bytes (NOTIFY allows 8,000), else only `{"h","s"}` and listeners read the row.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await sql`
    create function notify_message() returns trigger language plpgsql as $$
    declare
      payload text;
    begin
      if octet_length(new.envelope) <= 7000 then
        payload := json_build_object(
          'h', new.recipient,
          's', new.seq,
          'c', to_char(new.created_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'),
          'e', new.envelope
        )::text;
      end if;
      if payload is null or octet_length(payload) > 7000 then
        payload := json_build_object('h', new.recipient, 's', new.seq)::text;
      end if;
      perform pg_notify('handle_relay_messages', payload);
      return null;
    end
    $$
  `.execute(db);
  await sql`
    create trigger message_notify after insert on message
    for each row execute function notify_message()
  `.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`drop trigger message_notify on message`.execute(db);
  await sql`drop function notify_message()`.execute(db);
}
