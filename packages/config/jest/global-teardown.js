/** Stops the testcontainers server if this run started one. */
export default async function globalTeardown() {
  const container = globalThis.__testPostgresContainer;
  globalThis.__testPostgresContainer = undefined;
  if (container) await container.stop();
}
