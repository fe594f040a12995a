import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { rawConnection } from './raw-connection.js';
import { spawnService, stopIfRunning, tryConnect } from './service-process.js';
import type { ServiceProcess } from './service-process.js';
import { createTestDatabase, testDatabaseMode, type TestDatabase } from './test-database.js';

/** One test's place for a spawned service: a temp folder, its config files, its database. */
export interface ServiceSandbox {
  /** The current test's temp folder. */
  readonly dir: string;
  /** The service the test spawned; stopped after the test if it still runs. */
  running: ServiceProcess | undefined;
  /** Writes `yaml` to `name` in the temp folder and returns the file's path. */
  configFile: (yaml: string, name?: string) => string;
  /**
   * A fresh database on the run's PostgreSQL server, dropped after the test; undefined when
   * the run has none, so the service keeps its embedded database in the temp folder.
   */
  serverDatabaseUrl: (label: string) => Promise<string | undefined>;
}

/**
 * Registers the hooks of a test file whose tests spawn services: before each test a new temp
 * folder; after it, the service stopped (`stopSignal`), the database dropped, the folder gone.
 */
export function useServiceSandbox(
  prefix: string,
  stopSignal: NodeJS.Signals = 'SIGKILL',
): ServiceSandbox {
  let dir: string | undefined;
  const databases: TestDatabase[] = [];
  const sandbox: ServiceSandbox = {
    get dir() {
      if (dir === undefined) throw new Error('the sandbox exists only inside a test');
      return dir;
    },
    running: undefined,
    configFile: (yaml, name = 'config.yaml') => {
      const file = path.join(sandbox.dir, name);
      fs.writeFileSync(file, yaml);
      return file;
    },
    serverDatabaseUrl: async (label) => {
      if (testDatabaseMode() !== 'postgres') return undefined;
      const db = await createTestDatabase(label);
      databases.push(db);
      return db.target.kind === 'postgres' ? db.target.url : undefined;
    },
  };
  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  });
  afterEach(async () => {
    await stopIfRunning(sandbox.running, stopSignal);
    sandbox.running = undefined;
    for (const db of databases.splice(0)) await db.drop();
    if (dir !== undefined) fs.rmSync(dir, { recursive: true, force: true });
    dir = undefined;
  });
  return sandbox;
}

/** A configuration a service refuses, and the problem its one stderr line names. */
export interface BadConfiguration {
  /** The named file's text; null: the file named on the command line does not exist. */
  yaml: string | null;
  env: NodeJS.ProcessEnv;
  /** The problem, or how to name it from the config file's path. */
  problem: string | ((file: string) => string);
}

/**
 * The test that `service` (started from `entry`) refuses each configuration: each start
 * ends with exit code 2 and one stderr line naming the key or file, nothing on stdout. The
 * starts run side by side (each pays for loading the service, and they share nothing),
 * each with its YAML file in the sandbox's folder and its environment.
 */
export function itStopsOnBadConfiguration(
  sandbox: ServiceSandbox,
  service: string,
  entry: string,
  cases: readonly BadConfiguration[],
  timeoutMs: number,
): void {
  it(
    'stops with exit code 2 and one stderr line naming the key or file (unknown key, wrong type, a named file that is missing)',
    async () => {
      const files = cases.map(({ yaml }, i) =>
        yaml === null
          ? path.join(sandbox.dir, `missing-${i}.yaml`)
          : sandbox.configFile(yaml, `bad-${i}.yaml`),
      );
      const results = await Promise.all(
        cases.map(async ({ env }, i) => {
          const run = spawnService(entry, [files[i] ?? ''], env);
          const { code } = await run.exited;
          return {
            code,
            stderr: run.stderr(),
            stdout: run.stdout(),
          };
        }),
      );
      expect(results).toEqual(
        cases.map(({ problem }, i) => ({
          code: 2,
          stderr: `${service}: invalid configuration: ${typeof problem === 'string' ? problem : problem(files[i] ?? '')}\n`,
          stdout: '',
        })),
      );
    },
    timeoutMs,
  );
}

/** What a client saw while a service drained on SIGTERM with its request half sent. */
export interface DrainSeen {
  /** The answer to the whole request sent with the half one. */
  first: string;
  /** A new connection's outcome once the service logged `shutting down`. */
  newConnection: string;
  /** The service's exit code at that moment (null: still running). */
  exitCodeWhileDraining: number | null;
  /** The answer to the half request, finished after the signal. */
  second: string;
}

/**
 * A slow client over SIGTERM: one whole GET of `urlPath` and the first half of the next in
 * one write. Once the first answer is back the server has read the half request, so it is in
 * flight when the signal lands; the rest is sent once the service says it is shutting down.
 * Resolves when the server has closed the connection.
 */
export async function sigtermWithRequestInFlight(
  service: ServiceProcess,
  port: number,
  urlPath: string,
): Promise<DrainSeen> {
  const conn = await rawConnection(port);
  await conn.write(
    `GET ${urlPath} HTTP/1.1\r\nHost: localhost\r\n\r\nGET ${urlPath} HTTP/1.1\r\nHost: local`,
  );
  const [first] = await conn.readResponses(1);
  service.child.kill('SIGTERM');
  await service.waitForLog('shutting down');
  const newConnection = await tryConnect(port);
  const exitCodeWhileDraining = service.child.exitCode;
  await conn.write('host\r\n\r\n');
  const [second] = await conn.readResponses(1);
  await conn.closed;
  return { first: first!, newConnection, exitCodeWhileDraining, second: second! };
}
