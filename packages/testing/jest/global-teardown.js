import fs from 'node:fs';

/** Stops the testcontainers servers and removes the PGlite template if this run made them. */
export default async function globalTeardown() {
  const container = globalThis.__testPostgresContainer;
  globalThis.__testPostgresContainer = undefined;
  if (container) await container.stop();
  const minio = globalThis.__testMinioContainer;
  globalThis.__testMinioContainer = undefined;
  if (minio) await minio.stop();
  const templateDir = globalThis.__testPgliteTemplateDir;
  globalThis.__testPgliteTemplateDir = undefined;
  if (templateDir) fs.rmSync(templateDir, { recursive: true, force: true });
}
