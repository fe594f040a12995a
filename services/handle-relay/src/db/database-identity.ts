import { sql, type Kysely } from 'kysely';

/**
 * Names this database among all others, for the subject its instances share on a NATS server
 * that other deployments may use too: the cluster's system identifier and the database's oid
 * (both fixed for the database's life, and readable without privileges).
 */
export async function databaseIdentity<DB>(db: Kysely<DB>): Promise<string> {
  const { rows } = await sql<{ id: string }>`
    select s.system_identifier::text || '-' || d.oid::text as id
    from pg_control_system() s, pg_database d
    where d.datname = current_database()
  `.execute(db);
  return rows[0]!.id;
}
