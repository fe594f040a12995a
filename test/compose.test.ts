import fs from 'node:fs';
import path from 'node:path';
import yaml from 'js-yaml';
import { loadConfig, splitListen } from '../packages/config/src/index.js';
import { configSchema as assetStoreSchema } from '../services/asset-store/src/config.js';
import { configSchema as handleRelaySchema } from '../services/handle-relay/src/config.js';
import {
  composeSchemaErrors,
  envOf,
  readCompose,
  ROOT,
  serviceOf,
  type ComposeService,
} from './compose-file.js';

const compose = readCompose('docker-compose.yml');

/** A service's block, failing the test when it is absent. */
function service(name: string): ComposeService {
  return serviceOf(compose, name);
}

describe('docker-compose.yml', () => {
  it('is valid against the Compose specification schema', () => {
    expect(composeSchemaErrors(compose)).toEqual([]);
  });

  it('runs PostgreSQL with a healthcheck and its data on a named volume', () => {
    const postgres = service('postgres');
    expect(postgres.image).toMatch(/^postgres:\d+/);
    expect(JSON.stringify(postgres.healthcheck?.test)).toContain('pg_isready');
    const [source] = (postgres.volumes ?? [''])[0]?.split(':') ?? [];
    expect(compose.volumes).toHaveProperty([source ?? '']);
  });
});

const services = [
  {
    name: 'asset-store',
    prefix: 'ASSET_STORE',
    keys: Object.keys(assetStoreSchema.shape),
    load: (env: NodeJS.ProcessEnv): Record<string, unknown> =>
      loadConfig(assetStoreSchema, { env, prefix: 'ASSET_STORE' }),
    defaults: (): Record<string, unknown> => assetStoreSchema.parse({}),
    listenKey: 'listen',
    databaseKey: 'database_url',
    port: 8080,
    healthPath: '/healthz',
    dataKeys: ['storage_root'],
  },
  {
    name: 'handle-relay',
    prefix: 'HANDLE_RELAY',
    keys: Object.keys(handleRelaySchema.shape),
    load: (env: NodeJS.ProcessEnv): Record<string, unknown> =>
      loadConfig(handleRelaySchema, { env, prefix: 'HANDLE_RELAY' }),
    defaults: (): Record<string, unknown> => handleRelaySchema.parse({}),
    listenKey: 'bind',
    databaseKey: 'db',
    port: 8081,
    healthPath: '/v1/healthz',
    dataKeys: ['vapid_key_path', 'log_key_path'],
  },
] as const;

describe.each(services)('the $name container', (svc) => {
  const s = service(svc.name);
  const env = envOf(s);
  /** The service's settings as it would load them from this environment alone. */
  const settings = () => svc.load(env);
  const dockerfile = fs.readFileSync(path.join(ROOT, s.build?.dockerfile ?? 'missing'), 'utf8');

  it('is built from its Dockerfile with the repository as context', () => {
    expect(s.build).toEqual({ context: '.', dockerfile: `services/${svc.name}/Dockerfile` });
  });

  it('is configured only through its own environment variables', () => {
    expect(Object.keys(env).length).toBeGreaterThan(0);
    for (const name of Object.keys(env)) expect(name.startsWith(`${svc.prefix}_`)).toBe(true);
  });

  it('names only real settings, with values the service accepts', () => {
    expect(settings).not.toThrow();
    for (const name of Object.keys(env)) {
      expect(svc.keys).toContain(name.slice(svc.prefix.length + 1).toLowerCase());
    }
  });

  it('uses the compose PostgreSQL once it is healthy', () => {
    expect(s.depends_on).toEqual({ postgres: { condition: 'service_healthy' } });
    const pg = envOf(service('postgres'));
    const url = new URL(String(settings()[svc.databaseKey]));
    expect(url.protocol).toBe('postgres:');
    expect(url.hostname).toBe('postgres');
    expect(url.username).toBe(pg.POSTGRES_USER);
    expect(url.password).toBe(pg.POSTGRES_PASSWORD);
    expect(url.pathname).toBe(`/${pg.POSTGRES_DB}`);
  });

  it('listens on all interfaces at its contract port, published and exposed as such', () => {
    const { host, port } = splitListen(String(settings()[svc.listenKey]));
    expect({ host, port }).toEqual({ host: '0.0.0.0', port: svc.port });
    expect(s.ports).toEqual([`${svc.port}:${svc.port}`]);
    expect(dockerfile).toMatch(new RegExp(`^EXPOSE ${svc.port}$`, 'm'));
    expect(splitListen(String(svc.defaults()[svc.listenKey])).port).toBe(svc.port);
  });

  it('keeps its data on named volumes', () => {
    const mounts = (s.volumes ?? []).map((v) => {
      const [source = '', target = ''] = v.split(':');
      return { source, target };
    });
    for (const m of mounts) expect(compose.volumes).toHaveProperty([m.source]);
    for (const key of svc.dataKeys) {
      const value = String(settings()[key]);
      expect(mounts.some((m) => value === m.target || value.startsWith(`${m.target}/`))).toBe(true);
    }
  });

  it('copies every workspace manifest before installing, as the frozen lockfile needs', () => {
    const manifests = ['packages', 'services'].flatMap((group) =>
      fs
        .readdirSync(path.join(ROOT, group))
        .filter((name) => fs.existsSync(path.join(ROOT, group, name, 'package.json')))
        .map((name) => `${group}/${name}`),
    );
    expect(manifests.length).toBeGreaterThanOrEqual(4);
    for (const dir of manifests) {
      expect(dockerfile).toContain(`COPY ${dir}/package.json ${dir}/\n`);
    }
  });

  it('copies the dependency patches before installing, as the lockfile names them', () => {
    const workspace = yaml.load(
      fs.readFileSync(path.join(ROOT, 'pnpm-workspace.yaml'), 'utf8'),
    ) as {
      patchedDependencies?: Record<string, string>;
    };
    const patches = Object.values(workspace.patchedDependencies ?? {});
    expect(patches.length).toBeGreaterThan(0);
    for (const file of patches) {
      expect(file.startsWith('patches/')).toBe(true);
      expect(fs.existsSync(path.join(ROOT, file))).toBe(true);
    }
    const copy = dockerfile.indexOf('COPY patches patches\n');
    expect(copy).toBeGreaterThan(-1);
    expect(copy).toBeLessThan(dockerfile.indexOf('RUN pnpm install'));
  });

  it('has a multi-stage Dockerfile shipping production dependencies, run as a non-root user', () => {
    expect(dockerfile.match(/^FROM /gm)?.length).toBeGreaterThanOrEqual(2);
    expect(dockerfile).toMatch(/pnpm --filter \S+ deploy --prod/);
    expect(dockerfile).toMatch(/^USER node$/m);
    expect(dockerfile).toMatch(/^HEALTHCHECK /m);
    expect(dockerfile).toContain(`'${svc.healthPath}'`);
  });
});
