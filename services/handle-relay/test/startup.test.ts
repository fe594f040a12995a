import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import {
  freePort,
  rawConnection,
  spawnService,
  tryConnect,
  type ServiceProcess,
  stopIfRunning,
} from '@svc/testing/service-process';
import { createTestDatabase, testDatabaseMode, type TestDatabase } from '@svc/testing';

const ENTRY = path.resolve(import.meta.dirname, '..', 'src', 'main.ts');

// Each start loads the whole service through tsx; a fresh embedded database adds seconds.
const START_TIMEOUT_MS = 90_000;

let dir: string;
let running: ServiceProcess | undefined;
beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'handle-relay-startup-'));
});
afterEach(async () => {
  await stopIfRunning(running);
  running = undefined;
  fs.rmSync(dir, { recursive: true, force: true });
});

/** Writes a config file in the temp folder and returns its path. */
function configFile(yaml: string): string {
  const file = path.join(dir, 'config.yaml');
  fs.writeFileSync(file, yaml);
  return file;
}

describe('handle-relay start-up with a bad configuration', () => {
  const cases = [
    {
      yaml: '',
      env: { HANDLE_RELAY_BINDD: '127.0.0.1:1' },
      problem: 'HANDLE_RELAY_BINDD: unknown setting',
    },
    { yaml: 'sever: relay.example\n', env: {}, problem: 'sever: unknown key' },
    {
      yaml: '',
      env: { HANDLE_RELAY_RATE_LIMIT_PER_MINUTE: 'fast' },
      problem: 'rate_limit_per_minute: Invalid input: expected number, received string',
    },
  ];

  it(
    'stops with a non-zero exit and one stderr line naming the key (unknown key, wrong type)',
    async () => {
      // Side by side: each start pays for loading the service, and they share nothing.
      const results = await Promise.all(
        cases.map(async ({ yaml, env }, i) => {
          const file = path.join(dir, `bad-${i}.yaml`);
          fs.writeFileSync(file, yaml);
          const run = spawnService(ENTRY, [file], env);
          const { code } = await run.exited;
          return {
            failed: code !== 0 && code !== null,
            stderr: run.stderr(),
            stdout: run.stdout(),
          };
        }),
      );
      expect(results).toEqual(
        cases.map(({ problem }) => ({
          failed: true,
          stderr: `handle-relay: invalid configuration: ${problem}\n`,
          stdout: '',
        })),
      );
    },
    START_TIMEOUT_MS,
  );
});

describe('handle-relay start-up with a good configuration', () => {
  let db: TestDatabase | undefined;
  afterEach(async () => {
    await db?.drop();
    db = undefined;
  });

  it(
    'serves health, lets a slow in-flight request finish on SIGTERM, then exits 0',
    async () => {
      const port = await freePort();
      // Relative paths resolve against the config file's folder; a URL is used as given.
      let database = './db';
      if (testDatabaseMode() === 'postgres') {
        db = await createTestDatabase('relay_startup');
        if (db.target.kind === 'postgres') database = db.target.url;
      }
      const file = configFile(
        [
          `bind: 127.0.0.1:${port}`,
          `db: ${database}`,
          'server: relay.example',
          'vapid_key_path: ./vapid.json',
          '',
        ].join('\n'),
      );
      running = spawnService(ENTRY, [file]);
      await running.waitForLog('listening');
      if (database === './db') expect(fs.existsSync(path.join(dir, 'db'))).toBe(true);

      const res = await fetch(`http://127.0.0.1:${port}/v1/healthz`);
      expect(res.status).toBe(200);
      expect(await res.json()).toEqual({
        status: 'ok',
        server: 'relay.example',
        version: expect.any(String) as string,
      });

      // A slow client: one whole request and the first half of the next in one write. Once
      // the first answer is back, the server has read the half request, so it is in flight.
      const conn = await rawConnection(port);
      await conn.write(
        'GET /v1/healthz HTTP/1.1\r\nHost: localhost\r\n\r\nGET /v1/healthz HTTP/1.1\r\nHost: local',
      );
      const [first] = await conn.readResponses(1);
      expect(first).toMatch(/^HTTP\/1\.1 200 /);

      running.child.kill('SIGTERM');
      await running.waitForLog('shutting down');
      expect(await tryConnect(port)).toBe('ECONNREFUSED');
      expect(running.child.exitCode).toBeNull();

      await conn.write('host\r\n\r\n');
      const [second] = await conn.readResponses(1);
      expect(second).toMatch(/^HTTP\/1\.1 200 /);
      expect(second).toMatch(/\r\nConnection: close\r\n/i);
      expect(second).toContain('"server":"relay.example"');
      await conn.closed;

      expect(await running.exited).toEqual({ code: 0, signal: null });
      await running.waitForLog('stopped');
      expect(running.stderr()).toBe('');
    },
    START_TIMEOUT_MS,
  );
});
