import fs from 'node:fs';
import path from 'node:path';
import {
  freePort,
  spawnService,
  stopIfRunning,
  waitUntil,
  type LogLine,
  type ServiceProcess,
} from '@svc/testing/service-process';
import { useServiceSandbox } from '@svc/testing/service-sandbox';

/**
 * Several asset-store processes on one storage root and one database server, for the tests
 * of several instances: registers a file's hooks (a sandbox folder; every instance started
 * is stopped after each test).
 */
export const ENTRY = path.resolve(import.meta.dirname, '..', 'src', 'main.ts');
export const ADMIN = 'instances-admin-token';

/** One running instance: its process and its base URL. */
export interface Instance {
  service: ServiceProcess;
  base: string;
}

export interface Acknowledged {
  hash: string;
  timestamp: number;
  filename: string;
}

/** The hooks and helpers of one test file of several instances. */
export function useInstances(prefix: string) {
  const sandbox = useServiceSandbox(prefix);
  const started: ServiceProcess[] = [];
  afterEach(async () => {
    for (const service of started.splice(0)) await stopIfRunning(service);
  });

  /** Starts `count` instances at once on one storage root and one database server. */
  async function startInstances(url: string, count: number): Promise<Instance[]> {
    const root = path.join(sandbox.dir, 'assets');
    const instances = await Promise.all(
      Array.from({ length: count }, async (_, i) => {
        const port = await freePort();
        const config = sandbox.configFile(
          `storage_root: ${root}\nlisten: 127.0.0.1:${port}\ndatabase_url: ${url}\n` +
            `admin_token: ${ADMIN}\nlog_level: info\n`,
          `instance-${i}.yaml`,
        );
        const service = spawnService(ENTRY, [config]);
        started.push(service);
        return { service, base: `http://127.0.0.1:${port}` };
      }),
    );
    await Promise.all(
      instances.map(({ base, service }) =>
        Promise.race([
          waitUntil(async () => (await fetch(`${base}/healthz`)).status === 200),
          // An instance that ended will never answer: say so now rather than after the wait.
          service.exited.then(() => Promise.reject(new Error('ended before it was ready'))),
        ]).catch((err: Error) => {
          // What the instance did instead is the only clue to a start that never ends.
          const ended = service.child.exitCode ?? service.child.signalCode ?? 'running';
          throw new Error(
            `${err.message} (${ended}); stderr: ${service.stderr().slice(-2000)}; ` +
              `log: ${service.stdout().slice(-3000)}`,
          );
        }),
      ),
    );
    return instances;
  }

  /** Files of assets in the storage root, as `{timestamp}_{hash}.bin` names. */
  function assetFiles(): string[] {
    return fs.readdirSync(path.join(sandbox.dir, 'assets')).filter((n) => !n.startsWith('.'));
  }

  return { sandbox, started, startInstances, assetFiles };
}

export async function ingest(
  base: string,
  content: Buffer,
  name = 'same.bin',
): Promise<Acknowledged> {
  const form = new FormData();
  form.append('file', new Blob([content]), name);
  const res = await fetch(`${base}/api/v1/can/0/ingest`, { method: 'POST', body: form });
  if (res.status !== 200) throw new Error(`ingest answered ${res.status}: ${await res.text()}`);
  return ((await res.json()) as { data: Acknowledged }).data;
}

/** The service's JSON log lines so far with this `msg`. */
export function logged(service: ServiceProcess, msg: string): LogLine[] {
  return service
    .stdout()
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as LogLine)
    .filter((line) => line.msg === msg);
}
