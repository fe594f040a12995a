import { createTestDatabase } from '@svc/testing';
import { Kysely, PostgresDialect, sql } from 'kysely';
import pg from 'pg';
import * as linear from '../src/db/migrations/20261208090000_text_pairs_linear.js';
import { envNumber, median, printFigure, round3 } from './bench-kit.js';

/**
 * `pnpm --filter asset-store bench:text-pairs`: what `text_pairs` (the GIN index of character
 * pairs over `asset_text`, computed at every ingest, PATCH and rebuild) costs the server per
 * text, the migrated definition against the one before it (that migration's `down`), each in a
 * schema of its own on one fresh database (`TEST_DATABASE_URL`; PostgreSQL only). Lengths: a
 * typical search text (about 60 characters), 1,024 (the other fields' longest) and 16,384 (a
 * description's longest); `TEXT_PAIRS_PAIRS` (5) pairs per length, alternating which goes
 * first. One JSON line per length: µs per call of each and their ratio, median of the pairs.
 * **Targets:** 16,384 characters ≤ 0.1x the old definition; 1,024 ≤ 0.5x; the short text ≤ 1.1x.
 */
const PAIRS = envNumber('TEXT_PAIRS_PAIRS', 5);
const say = (line: string) => process.stderr.write(`bench:text-pairs: ${line}\n`);

/** Each length with the calls per measurement (about a second of the old definition). */
const CASES = [
  { name: 'search text', length: 60, calls: 20_000, target: 1.1 },
  { name: '1,024 characters', length: 1024, calls: 200, target: 0.5 },
  { name: '16,384 characters', length: 16_384, calls: 2, target: 0.1 },
];

/** Mixed scripts and whitespace, so both definitions walk multi-byte UTF-8 as real text does. */
function sample(length: number): string {
  const words = ['harbour_01.jpg', 'fotos/été', 'evening', 'at', 'the', 'lantern', '日本語', 'ß'];
  let text = '';
  for (let i = 0; text.length < length; i++) text += `${words[i % words.length]} `;
  return text.slice(0, length);
}

function schemaDb(url: string, schema: string): Kysely<unknown> {
  const pool = new pg.Pool({ connectionString: url, max: 1, options: `-c search_path=${schema}` });
  return new Kysely({ dialect: new PostgresDialect({ pool }) });
}

/** µs per call of `text_pairs` over `calls` distinct texts of `length` characters. */
async function perCall(db: Kysely<unknown>, length: number, calls: number): Promise<number> {
  const started = performance.now();
  // The series number ends each text, so no call can be answered from a cache.
  await sql`select count(text_pairs(left(${sample(length)}, ${length - 6}) || g::text))
    from generate_series(100000, ${100000 + calls - 1}) as g`.execute(db);
  return ((performance.now() - started) * 1000) / calls;
}

async function main(): Promise<void> {
  if (!process.env.TEST_DATABASE_URL) throw new Error('set TEST_DATABASE_URL (PostgreSQL)');
  const database = await createTestDatabase('bench_text_pairs');
  if (database.target.kind !== 'postgres') throw new Error('PostgreSQL only');
  const { url } = database.target;
  const admin = schemaDb(url, 'public');
  await sql`create schema migrated`.execute(admin);
  await sql`create schema before`.execute(admin);
  const migrated = schemaDb(url, 'migrated');
  const before = schemaDb(url, 'before');
  try {
    await linear.up(migrated);
    await linear.down(before);
    for (const c of CASES) {
      const ratios: number[] = [];
      const micros = { migrated: [] as number[], before: [] as number[] };
      await perCall(migrated, c.length, c.calls); // warm-up, not judged
      await perCall(before, c.length, c.calls);
      for (let pair = 0; pair < PAIRS; pair++) {
        const order =
          pair % 2 === 0 ? (['migrated', 'before'] as const) : (['before', 'migrated'] as const);
        const got: Record<string, number> = {};
        for (const side of order) {
          got[side] = await perCall(side === 'migrated' ? migrated : before, c.length, c.calls);
        }
        micros.migrated.push(got.migrated!);
        micros.before.push(got.before!);
        ratios.push(got.migrated! / got.before!);
        say(`${c.name}: ${got.migrated!.toFixed(1)} µs vs ${got.before!.toFixed(1)} µs`);
      }
      const ratio = median(ratios);
      printFigure({
        bench: 'text-pairs',
        text: c.name,
        migrated_us: round3(median(micros.migrated)),
        before_us: round3(median(micros.before)),
        ratio: round3(ratio),
        target: c.target,
        met: ratio <= c.target,
        pairs: ratios.map(round3),
      });
    }
  } finally {
    await Promise.all([migrated.destroy(), before.destroy(), admin.destroy()]);
    await database.drop();
  }
}

await main();
