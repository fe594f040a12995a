import { CompiledQuery, sql, type Kysely } from 'kysely';
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

/** The bucket refilled for the time since its last take, capped at the burst. */
const REFILLED = `least($5::float8, b.tokens + greatest(0, $3::bigint - b.updated_at) * $4::float8)`;

/**
 * One fixed text, sent as a named prepared statement (`preparedAs`'s mark): every limited
 * request runs it. Parameters: route, address, now (ms), tokens per ms, burst.
 */
const TAKE = `/* prepared:take_rate_token */ insert into rate_bucket as b
    (route, address, tokens, updated_at, allowed)
  values ($1, $2, $5::float8 - 1, $3::bigint, true)
  on conflict (route, address) do update set
    tokens = case when ${REFILLED} >= 1 then ${REFILLED} - 1 else ${REFILLED} end,
    updated_at = $3::bigint,
    allowed = ${REFILLED} >= 1
  returning tokens, allowed`;

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
  const { rows } = await db.executeQuery<TakenBucket>(
    CompiledQuery.raw(TAKE, [shape.route, address, nowMs, shape.perMs, shape.burst]),
  );
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
