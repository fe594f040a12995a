import { spawnSync } from 'node:child_process';
import yaml from 'js-yaml';
import { loadConfig } from '../packages/config/src/index.js';
import { configSchema } from '../services/asset-store/src/config.js';
import { configSchema as relayConfigSchema } from '../services/handle-relay/src/config.js';
import {
  composeSchemaErrors,
  envOf,
  mergeCompose,
  readCompose,
  ROOT,
  serviceOf,
  type Compose,
} from './compose-file.js';

const FILES = ['docker-compose.yml', 'docker-compose.scale.yml'];
const merged = mergeCompose(readCompose(FILES[0]!), readCompose(FILES[1]!));
const INSTANCES = ['asset-store', 'asset-store-2'];
const RELAYS = ['handle-relay', 'handle-relay-2'];
/** The AWS SDK's default chain: the only variables besides the service's own. */
const CREDENTIALS = ['AWS_ACCESS_KEY_ID', 'AWS_SECRET_ACCESS_KEY'];

/** An instance's settings as it would load them from its environment. */
function settingsOf(compose: Compose, name: string) {
  return loadConfig(configSchema, { env: envOf(serviceOf(compose, name)), prefix: 'ASSET_STORE' });
}

/** The host port each published `host:container` entry takes. */
function hostPorts(compose: Compose, name: string): string[] {
  return (serviceOf(compose, name).ports ?? []).map((p) => p.split(':')[0]!);
}

/** `docker-compose` (Debian's 1.29) or Compose v2 merging the files, when one is installed. */
function dockerCompose(args: string[]): { status: number | null; stdout: string; stderr: string } {
  const files = FILES.flatMap((f) => ['-f', f]);
  const run = spawnSync('docker-compose', [...files, ...args], { cwd: ROOT, encoding: 'utf8' });
  return { status: run.error ? null : run.status, stdout: run.stdout, stderr: run.stderr };
}
// Skipped without a docker-compose binary: the schema checks above still run.
const composeInstalled = dockerCompose(['version']).status === 0;

describe('docker-compose.scale.yml over docker-compose.yml', () => {
  it('is valid against the Compose specification schema once merged', () => {
    expect(composeSchemaErrors(merged)).toEqual([]);
  });

  it('adds MinIO with a healthcheck and a second asset-store, and no load balancer', () => {
    expect(Object.keys(merged.services).sort()).toEqual(
      [
        'asset-store',
        'asset-store-2',
        'handle-relay',
        'handle-relay-2',
        'minio',
        'nats',
        'postgres',
      ].sort(),
    );
    const minio = serviceOf(merged, 'minio');
    expect(minio.image).toBe('minio/minio');
    expect(minio.command?.slice(0, 2)).toEqual(['server', '/data']);
    expect(JSON.stringify(minio.healthcheck?.test)).toContain('ready');
    for (const name of INSTANCES) {
      expect(serviceOf(merged, name).build).toEqual({
        context: '.',
        dockerfile: 'services/asset-store/Dockerfile',
      });
    }
  });

  it('gives both instances the one database and the one bucket, with MinIO’s credentials', () => {
    const [first, second] = INSTANCES.map((name) => settingsOf(merged, name));
    const shared = (s: typeof first) => ({
      database_url: s!.database_url,
      storage_backend: s!.storage_backend,
      s3_bucket: s!.s3_bucket,
      s3_prefix: s!.s3_prefix,
      s3_endpoint: s!.s3_endpoint,
      s3_region: s!.s3_region,
      s3_force_path_style: s!.s3_force_path_style,
    });
    expect(shared(second)).toEqual(shared(first));
    expect(shared(first)).toMatchObject({
      storage_backend: 's3',
      s3_endpoint: 'http://minio:9000',
      s3_force_path_style: true,
    });
    // The base file's PostgreSQL, unchanged.
    expect(first!.database_url).toBe(
      settingsOf(readCompose(FILES[0]!), 'asset-store').database_url,
    );
    const minio = envOf(serviceOf(merged, 'minio'));
    for (const name of INSTANCES) {
      const env = envOf(serviceOf(merged, name));
      expect(
        Object.keys(env)
          .filter((k) => !k.startsWith('ASSET_STORE_'))
          .sort(),
      ).toEqual(CREDENTIALS);
      expect([env.AWS_ACCESS_KEY_ID, env.AWS_SECRET_ACCESS_KEY]).toEqual([
        minio.MINIO_ROOT_USER,
        minio.MINIO_ROOT_PASSWORD,
      ]);
      expect(serviceOf(merged, name).depends_on).toEqual({
        postgres: { condition: 'service_healthy' },
        minio: { condition: 'service_healthy' },
      });
    }
  });

  it('publishes each instance on a port of its own, with scratch space of its own', () => {
    const ports = INSTANCES.map((name) => hostPorts(merged, name));
    expect(ports).toEqual([['8080'], ['8082']]);
    const taken = Object.keys(merged.services).flatMap((name) => hostPorts(merged, name));
    expect(new Set(taken).size).toBe(taken.length);
    for (const name of INSTANCES) {
      expect(settingsOf(merged, name).listen).toBe('0.0.0.0:8080');
      expect(serviceOf(merged, name).ports?.every((p) => p.endsWith(':8080'))).toBe(true);
    }
    const volumes = INSTANCES.map((name) => serviceOf(merged, name).volumes ?? []);
    expect(volumes).toEqual([['assets:/data/assets'], ['assets-2:/data/assets']]);
    for (const v of ['assets', 'assets-2', 'minio-data'])
      expect(merged.volumes).toHaveProperty([v]);
  });

  it('adds NATS with JetStream and a healthcheck, and both relays fan out through it on one database', () => {
    const nats = serviceOf(merged, 'nats');
    expect(nats.command).toEqual(expect.arrayContaining(['-js']));
    expect(JSON.stringify(nats.healthcheck?.test)).toContain('healthz');
    const settings = RELAYS.map((name) =>
      loadConfig(relayConfigSchema, {
        env: envOf(serviceOf(merged, name)),
        prefix: 'HANDLE_RELAY',
      }),
    );
    for (const s of settings) {
      expect({ pubsub: s.pubsub, nats_url: s.nats_url }).toEqual({
        pubsub: 'nats',
        nats_url: 'nats://nats:4222',
      });
      expect(s.db).toBe(settings[0]!.db);
    }
    for (const name of RELAYS) {
      expect(serviceOf(merged, name).depends_on).toMatchObject({
        nats: { condition: 'service_healthy' },
      });
    }
    expect(RELAYS.map((name) => hostPorts(merged, name))).toEqual([['8081'], ['8083']]);
  });

  // Skipped where docker-compose is not installed: its own reading of the files is the check.
  (composeInstalled ? it : it.skip)('is accepted and merged alike by docker-compose', () => {
    const quiet = dockerCompose(['config', '-q']);
    expect({ status: quiet.status, stderr: quiet.stderr }).toEqual({ status: 0, stderr: '' });
    const config = yaml.load(dockerCompose(['config']).stdout) as Compose;
    for (const name of [...INSTANCES, ...RELAYS, 'minio', 'nats']) {
      expect(envOf(serviceOf(config, name))).toEqual(envOf(serviceOf(merged, name)));
    }
  });
});
