import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';

/** The images the harness starts; pulled only with TEST_PULL_IMAGES=1. */
const POSTGRES_IMAGE = 'postgres:16-alpine';
const MINIO_IMAGE = 'minio/minio:RELEASE.2024-12-13T22-19-12Z';

/**
 * Chooses the run's Postgres once, before any test file: TEST_DATABASE_URL, else a
 * testcontainers server when a Docker engine answers and holds the image, else embedded
 * PGlite. The choice reaches the workers through the environment (TEST_DATABASE_MODE,
 * TEST_DATABASE_URL). A part given by the environment (TEST_DATABASE_URL, S3_ENDPOINT) never
 * touches Docker. The fallback to PGlite says why in one line; with TEST_REQUIRE_POSTGRES=1
 * (CI) it fails the run instead, so a run meant for PostgreSQL never quietly tests PGlite.
 * In PGlite mode it also initialises one data folder and saves it as a tarball
 * (TEST_PGLITE_TEMPLATE), so each test file's database starts from it instead of initdb.
 */
export default async function globalSetup() {
  await chooseDatabase();
  await chooseS3();
  await chooseNats();
}

/**
 * Chooses the run's NATS server for the suites that need one (`describeNats`): TEST_NATS_URL
 * as given, else the machine's own at 127.0.0.1:4222 when it answers, else none:
 * TEST_NATS_SKIPPED says why, and those suites skip.
 */
async function chooseNats() {
  if (process.env.TEST_NATS_URL || process.env.TEST_NATS_SKIPPED) return;
  const answers = await new Promise((resolve) => {
    const socket = net.connect(4222, '127.0.0.1');
    socket.setTimeout(1_000, () => socket.destroy(new Error('timed out')));
    socket.once('data', (data) => {
      socket.destroy();
      resolve(data.toString().startsWith('INFO '));
    });
    socket.once('error', () => resolve(false));
  });
  if (answers) process.env.TEST_NATS_URL = 'nats://127.0.0.1:4222';
  else process.env.TEST_NATS_SKIPPED = 'no TEST_NATS_URL, and nothing answers at 127.0.0.1:4222';
}

/**
 * Why testcontainers cannot start `image` here without reaching out to a registry, or
 * undefined when it can: a Docker engine must answer and hold the image. A machine with an
 * engine but no registry would otherwise try a public registry and wait for it to fail
 * before falling back; images are pulled only with TEST_PULL_IMAGES=1 (the GitHub workflow
 * sets it). Ryuk, testcontainers' reaper, is turned off when its image is not held: the
 * global teardown stops the containers itself.
 */
async function dockerCannotStart(image) {
  let client;
  try {
    const { getContainerRuntimeClient } = await import('testcontainers');
    client = await getContainerRuntimeClient();
  } catch (err) {
    return `no Docker engine answers (${errorText(err)})`;
  }
  if (process.env.TEST_PULL_IMAGES === '1') return undefined;
  const { ImageName } = await import('testcontainers');
  const held = (name) => client.image.exists(ImageName.fromString(name)).catch(() => false);
  if (!(await held(image))) {
    return `${image} is not on this Docker engine, and the tests pull no image unless TEST_PULL_IMAGES=1`;
  }
  if (process.env.TESTCONTAINERS_RYUK_DISABLED !== 'true') {
    const { REAPER_IMAGE } = await import('testcontainers/build/reaper/reaper.js');
    if (!(await held(REAPER_IMAGE))) process.env.TESTCONTAINERS_RYUK_DISABLED = 'true';
  }
  return undefined;
}

async function chooseDatabase() {
  if (process.env.TEST_DATABASE_MODE) return;
  if (process.env.TEST_DATABASE_URL) {
    process.env.TEST_DATABASE_MODE = 'postgres';
    return;
  }
  try {
    const cannot = await dockerCannotStart(POSTGRES_IMAGE);
    if (cannot) throw new Error(cannot);
    const { PostgreSqlContainer } = await import('@testcontainers/postgresql');
    const container = await new PostgreSqlContainer(POSTGRES_IMAGE).start();
    globalThis.__testPostgresContainer = container;
    process.env.TEST_DATABASE_URL = container.getConnectionUri();
    process.env.TEST_DATABASE_MODE = 'postgres';
    console.log(`\ntests use a testcontainers Postgres`);
  } catch (err) {
    const reason = `no PostgreSQL from testcontainers: ${errorText(err)}`;
    if (process.env.TEST_REQUIRE_POSTGRES === '1') {
      throw new Error(`TEST_REQUIRE_POSTGRES=1 and no TEST_DATABASE_URL, and ${reason}`);
    }
    process.env.TEST_DATABASE_MODE = 'pglite';
    process.env.TEST_PGLITE_TEMPLATE = await pgliteTemplate();
    console.log(`\ntests use embedded PGlite (no TEST_DATABASE_URL; ${reason})`);
  }
}

/**
 * Chooses the run's S3 for the suites that need one (`describeS3`): S3_ENDPOINT as given
 * (the Ceph gateway of .ci/run, or a developer's server), else a testcontainers MinIO when a
 * Docker engine can pull it, else none: TEST_S3_SKIPPED says why, and those suites skip.
 * TEST_S3=off skips them without trying Docker.
 */
async function chooseS3() {
  if (process.env.S3_ENDPOINT || process.env.TEST_S3_SKIPPED) return;
  if (process.env.TEST_S3 === 'off') {
    process.env.TEST_S3_SKIPPED = 'TEST_S3=off';
    return;
  }
  try {
    const cannot = await dockerCannotStart(MINIO_IMAGE);
    if (cannot) throw new Error(cannot);
    const { MinioContainer } = await import('@testcontainers/minio');
    const container = await new MinioContainer(MINIO_IMAGE).start();
    globalThis.__testMinioContainer = container;
    Object.assign(process.env, {
      S3_ENDPOINT: container.getConnectionUrl(),
      S3_REGION: 'us-east-1',
      S3_ACCESS_KEY_ID: container.getUsername(),
      S3_SECRET_ACCESS_KEY: container.getPassword(),
      S3_FORCE_PATH_STYLE: 'true',
    });
    console.log(`tests use a testcontainers MinIO for S3`);
  } catch (err) {
    process.env.TEST_S3_SKIPPED = `no S3_ENDPOINT, and no MinIO from testcontainers: ${errorText(err)}`;
  }
}

/** One line from an error and its causes (testcontainers wraps Docker's answer). */
function errorText(err) {
  const parts = [];
  for (let e = err; e && parts.length < 4; e = e.cause) {
    parts.push(e instanceof Error ? e.message : String(e));
  }
  return parts.join(': ').replace(/\s+/g, ' ').trim();
}

async function pgliteTemplate() {
  const { PGlite } = await import('@electric-sql/pglite');
  const db = await PGlite.create();
  const dump = await db.dumpDataDir('none');
  await db.close();
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'pglite-template-'));
  const file = path.join(dir, 'pgdata.tar');
  fs.writeFileSync(file, Buffer.from(await dump.arrayBuffer()));
  globalThis.__testPgliteTemplateDir = dir;
  return file;
}
