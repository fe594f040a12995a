import { sql, type Kysely } from 'kysely';
import type { Database } from '../db/database.js';

/** A bucket after one take. */
export interface TakenBucket {
  tokens: number;
  allowed: boolean;
}

/** One route's bucket shape. */
export interface BucketShape {
  route: string;
  perMs: number;
  burst: number;
}

/**
 * Takes one token from a bucket in one statement, under the row's lock, so takes from every
 * instance count against one budget: refill for the time since the last take (capped at
 * `burst`), then take one if there is one. A new address starts with a full bucket.
 */
export async function takeToken(
  db: Kysely<Database>,
  shape: BucketShape,
  address: string,
  nowMs: number,
): Promise<TakenBucket> {
  const { route, perMs, burst } = shape;
  const refilled = sql<number>`least(
    ${burst}::float8,
    b.tokens + greatest(0, ${nowMs}::bigint - b.updated_at) * ${perMs}::float8
  )`;
  const { rows } = await sql<TakenBucket>`
    insert into rate_bucket as b (route, address, tokens, updated_at, allowed)
    values (${route}, ${address}, ${burst}::float8 - 1, ${nowMs}::bigint, true)
    on conflict (route, address) do update set
      tokens = case when ${refilled} >= 1 then ${refilled} - 1 else ${refilled} end,
      updated_at = ${nowMs}::bigint,
      allowed = ${refilled} >= 1
    returning tokens, allowed`.execute(db);
  return rows[0]!;
}

/** Forgets one route's buckets that would be full again: they are as good as new. */
export async function forgetFullBuckets(
  db: Kysely<Database>,
  shape: BucketShape,
  nowMs: number,
): Promise<void> {
  await sql`
    delete from rate_bucket
    where route = ${shape.route}
      and tokens + greatest(0, ${nowMs}::bigint - updated_at) * ${shape.perMs}::float8 >= ${shape.burst}::float8
  `.execute(db);
}
