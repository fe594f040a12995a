/**
 * Chooses the run's Postgres once, before any test file: TEST_DATABASE_URL, else a
 * testcontainers server when a Docker engine answers, else embedded PGlite. The choice
 * reaches the workers through the environment (TEST_DATABASE_MODE, TEST_DATABASE_URL).
 */
export default async function globalSetup() {
  if (process.env.TEST_DATABASE_MODE) return;
  if (process.env.TEST_DATABASE_URL) {
    process.env.TEST_DATABASE_MODE = 'postgres';
    return;
  }
  try {
    const { getContainerRuntimeClient } = await import('testcontainers');
    await getContainerRuntimeClient();
    const { PostgreSqlContainer } = await import('@testcontainers/postgresql');
    const container = await new PostgreSqlContainer('postgres:16-alpine').start();
    globalThis.__testPostgresContainer = container;
    process.env.TEST_DATABASE_URL = container.getConnectionUri();
    process.env.TEST_DATABASE_MODE = 'postgres';
    console.log(`\ntests use a testcontainers Postgres`);
  } catch {
    process.env.TEST_DATABASE_MODE = 'pglite';
    console.log(`\ntests use embedded PGlite (no TEST_DATABASE_URL, no Docker engine)`);
  }
}
