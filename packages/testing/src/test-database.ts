import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import pg from 'pg';

const MODE_ENV = 'TEST_DATABASE_MODE';
/** Set by the global setup in PGlite mode: a freshly initialised data folder, as a tarball. */
const TEMPLATE_ENV = 'TEST_PGLITE_TEMPLATE';

/**
 * Where a test database is: a `DatabaseTarget` of `@svc/database`, spelled out here so
 * that the database package's own tests can use this one without a cycle.
 */
export type TestDatabaseTarget =
  { kind: 'postgres'; url: string } | { kind: 'pglite'; dataDir?: string; template?: Blob };

/** A database of its own for one test file, and how to drop it afterwards. */
export interface TestDatabase {
  target: TestDatabaseTarget;
  drop(): Promise<void>;
}

function withDatabase(url: string, database: string): string {
  const u = new URL(url);
  u.pathname = `/${database}`;
  return u.toString();
}

/**
 * Creates a fresh, empty database for one test file: a new database on the server in
 * postgres mode, a new in-memory PGlite otherwise. Tests never share rows.
 */
export async function createTestDatabase(label: string): Promise<TestDatabase> {
  const url = process.env.TEST_DATABASE_URL;
  if (!url || process.env[MODE_ENV] === 'pglite') {
    // Loading the template skips initdb, the slow part of starting an embedded database.
    const templateFile = process.env[TEMPLATE_ENV];
    const template =
      templateFile && fs.existsSync(templateFile)
        ? new Blob([fs.readFileSync(templateFile)])
        : undefined;
    return { target: { kind: 'pglite', template }, drop: () => Promise.resolve() };
  }
  const name = `t_${label
    .replace(/[^a-z0-9]/gi, '_')
    .toLowerCase()
    .slice(0, 30)}_${randomBytes(5).toString('hex')}`;
  const admin = new pg.Client({ connectionString: url });
  await admin.connect();
  try {
    await admin.query(`create database ${name}`);
  } finally {
    await admin.end();
  }
  return {
    target: { kind: 'postgres', url: withDatabase(url, name) },
    drop: async () => {
      const c = new pg.Client({ connectionString: url });
      await c.connect();
      try {
        await c.query(`drop database if exists ${name} with (force)`);
      } finally {
        await c.end();
      }
    },
  };
}

/** Which Postgres this run uses, for tests that must know (e.g. LISTEN/NOTIFY). */
export function testDatabaseMode(): 'postgres' | 'pglite' {
  return process.env[MODE_ENV] === 'postgres' && process.env.TEST_DATABASE_URL
    ? 'postgres'
    : 'pglite';
}
