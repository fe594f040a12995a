import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import yaml from 'js-yaml';
import { createTestApp as createAssetStore } from '../services/asset-store/test/test-app.js';
import { createTestApp as createHandleRelay } from '../services/handle-relay/test/test-app.js';
import {
  composeSchemaErrors,
  envOf,
  mergeCompose,
  readCompose,
  ROOT,
  serviceOf,
} from './compose-file.js';

// The operators' files (observability/, docker-compose.observability.yml) against the
// services they watch. promtool checks the rules' syntax in CI (.ci/ops-checks.sh).

const OBS = path.join(ROOT, 'observability');
const SERVICES = [
  { name: 'asset-store', prefix: 'asset_store', port: 'ASSET_STORE_LISTEN' },
  { name: 'handle-relay', prefix: 'handle_relay', port: 'HANDLE_RELAY_BIND' },
] as const;

interface RuleFile {
  groups: { name: string; rules: { alert?: string; record?: string; expr: string }[] }[];
}
interface Dashboard {
  panels: { title: string; targets: { expr: string }[] }[];
}
interface PrometheusConfig {
  rule_files: string[];
  scrape_configs: { job_name: string; static_configs: { targets: string[] }[] }[];
}

const readYaml = <T>(file: string): T => yaml.load(fs.readFileSync(file, 'utf8')) as T;
const rulesOf = (service: string) =>
  readYaml<RuleFile>(path.join(OBS, 'prometheus/rules', `${service}.rules.yml`));
const dashboardOf = (service: string) =>
  JSON.parse(fs.readFileSync(path.join(OBS, 'grafana', `${service}.json`), 'utf8')) as Dashboard;

/** The series names an expression reads that belong to a service (`up` is Prometheus's). */
function seriesIn(expr: string, prefix: string): string[] {
  return [...expr.matchAll(/\b([a-z_][a-z0-9_]*)\s*(?=[{[)\s]|$)/g)]
    .map((m) => m[1]!)
    .filter((name) => name.startsWith(`${prefix}_`));
}

/** Every expression of a service's rules and dashboard. */
function expressionsOf(service: string): { where: string; expr: string }[] {
  const rules = rulesOf(service).groups.flatMap((g) =>
    g.rules.map((r) => ({ where: `rule ${r.alert ?? r.record}`, expr: r.expr })),
  );
  const panels = dashboardOf(service).panels.flatMap((p) =>
    p.targets.map((t) => ({ where: `panel "${p.title}"`, expr: t.expr })),
  );
  return [...rules, ...panels];
}

/** The metric names a `/metrics` text declares, with a histogram's `_bucket`, `_sum`, `_count`. */
function exported(text: string): Set<string> {
  const names = new Set<string>();
  for (const [, name, type] of text.matchAll(/^# TYPE (\S+) (\S+)$/gm)) {
    names.add(name!);
    if (type === 'histogram' || type === 'summary') {
      for (const suffix of ['_bucket', '_sum', '_count']) names.add(`${name!}${suffix}`);
    }
  }
  return names;
}

/** `GET /metrics` of an app, as Prometheus asks it: over HTTP. */
async function scrape(app: http.RequestListener): Promise<string> {
  const server = http.createServer(app);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  try {
    const res = await fetch(`http://127.0.0.1:${(server.address() as AddressInfo).port}/metrics`);
    expect(res.status).toBe(200);
    return await res.text();
  } finally {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
}

describe('every series a rule or a panel names is exported by a running service', () => {
  it.each(SERVICES)(
    '$name',
    async ({ name, prefix }) => {
      const t =
        name === 'asset-store'
          ? await createAssetStore('observability')
          : await createHandleRelay('observability');
      try {
        const names = exported(await scrape(t.app));
        const used = expressionsOf(name).flatMap(({ where, expr }) =>
          seriesIn(expr, prefix).map((series) => ({ where, series })),
        );
        expect(used.length).toBeGreaterThan(20);
        expect(used.filter(({ series }) => !names.has(series))).toEqual([]);
      } finally {
        await t.close();
      }
    },
    60_000,
  );
});

describe('the rules and dashboards', () => {
  it.each(SERVICES)('$name: alerts on errors, latency and its own signals', ({ name }) => {
    const alerts = rulesOf(name).groups.flatMap((g) => g.rules.map((r) => r.alert));
    const expected =
      name === 'asset-store'
        ? ['Down', 'ErrorRate', 'Latency', 'CorruptionFound', 'OutOfSpace', 'StorageUnavailable']
        : ['Down', 'ErrorRate', 'Latency', 'StreamLag', 'PushFailing', 'Unavailable'];
    const prefix = name === 'asset-store' ? 'AssetStore' : 'HandleRelay';
    expect(alerts).toEqual(expect.arrayContaining(expected.map((a) => `${prefix}${a}`)));
    for (const rule of rulesOf(name).groups.flatMap((g) => g.rules)) {
      expect(rule).toMatchObject({
        labels: { severity: expect.stringMatching(/^(warning|critical)$/) as string },
      });
    }
  });

  it.each(SERVICES)(
    '$name: the dashboard has a Prometheus data source and an instance filter',
    ({ name }) => {
      const dashboard = dashboardOf(name) as Dashboard & {
        uid: string;
        templating: { list: { name: string; type: string }[] };
      };
      expect(dashboard.uid).toBe(`can-${name}`);
      expect(dashboard.templating.list.map((v) => [v.name, v.type])).toEqual([
        ['datasource', 'datasource'],
        ['instance', 'query'],
      ]);
      for (const { where, expr } of expressionsOf(name).filter((e) =>
        e.where.startsWith('panel'),
      )) {
        expect({ where, filtered: expr.includes('instance=~"$instance"') }).toEqual({
          where,
          filtered: true,
        });
      }
    },
  );
});

describe('docker-compose.observability.yml over docker-compose.yml', () => {
  const base = readCompose('docker-compose.yml');
  const merged = mergeCompose(base, readCompose('docker-compose.observability.yml'));
  const prometheus = serviceOf(merged, 'prometheus');
  const config = readYaml<PrometheusConfig>(path.join(OBS, 'prometheus/prometheus.yml'));

  it('is valid against the Compose specification schema', () => {
    expect(composeSchemaErrors(merged)).toEqual([]);
  });

  it('mounts observability/prometheus, whose prometheus.yml loads every rule file there', () => {
    expect(prometheus.volumes).toContain('./observability/prometheus:/etc/prometheus:ro');
    expect(prometheus.command).toContain('--config.file=/etc/prometheus/prometheus.yml');
    const files = fs.readdirSync(path.join(OBS, 'prometheus/rules')).map((f) => `rules/${f}`);
    expect([...config.rule_files].sort()).toEqual(files.sort());
  });

  it('scrapes each service by its compose name on the port it listens on', () => {
    for (const { name, port } of SERVICES) {
      const listen = envOf(serviceOf(base, name))[port]!;
      const job = config.scrape_configs.find((c) => c.job_name === name);
      expect(job?.static_configs).toEqual([
        { targets: [`${name}:${listen.slice(listen.lastIndexOf(':') + 1)}`] },
      ]);
    }
  });

  it('is accepted by docker-compose when one is installed', () => {
    const run = spawnSync(
      'docker-compose',
      ['-f', 'docker-compose.yml', '-f', 'docker-compose.observability.yml', 'config', '-q'],
      { cwd: ROOT, encoding: 'utf8' },
    );
    // Without the binary the checks above still stand.
    if (run.error) return;
    expect({ status: run.status, stderr: run.stderr }).toEqual({ status: 0, stderr: '' });
  });
});
