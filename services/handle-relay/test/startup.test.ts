import fs from 'node:fs';
import path from 'node:path';
import { freePort, spawnService } from '@svc/testing/service-process';
import {
  sigtermWithRequestInFlight,
  itStopsOnBadConfiguration,
  useServiceSandbox,
} from '@svc/testing/service-sandbox';

const ENTRY = path.resolve(import.meta.dirname, '..', 'src', 'main.ts');

// Each start loads the whole service through tsx; a fresh embedded database adds seconds.
const START_TIMEOUT_MS = 90_000;

const sandbox = useServiceSandbox('handle-relay-startup-');

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
    {
      // A typo in the file's name must not start an open, empty service on defaults.
      yaml: null,
      env: {},
      problem: (file: string) =>
        `${file}: no such file (a config file named on the command line must exist)`,
    },
  ];

  itStopsOnBadConfiguration(sandbox, 'handle-relay', ENTRY, cases, START_TIMEOUT_MS);
});

describe('handle-relay start-up with a good configuration', () => {
  it(
    'serves health, lets a slow in-flight request finish on SIGTERM, then exits 0',
    async () => {
      const port = await freePort();
      // Relative paths resolve against the config file's folder; a URL is used as given.
      const database = (await sandbox.serverDatabaseUrl('relay_startup')) ?? './db';
      const file = sandbox.configFile(
        [
          `bind: 127.0.0.1:${port}`,
          `db: ${database}`,
          'server: relay.example',
          'vapid_key_path: ./vapid.json',
          '',
        ].join('\n'),
      );
      sandbox.running = spawnService(ENTRY, [file]);
      await sandbox.running.waitForLog('listening');
      if (database === './db') expect(fs.existsSync(path.join(sandbox.dir, 'db'))).toBe(true);

      const res = await fetch(`http://127.0.0.1:${port}/v1/healthz`);
      expect(res.status).toBe(200);
      expect(await res.json()).toEqual({
        status: 'ok',
        server: 'relay.example',
        version: expect.any(String) as string,
        log_key: expect.stringMatching(/^ed25519:[0-9a-f]{64}$/) as string,
      });

      const drain = await sigtermWithRequestInFlight(sandbox.running, port, '/v1/healthz');
      expect(drain.first).toMatch(/^HTTP\/1\.1 200 /);
      expect(drain.newConnection).toBe('ECONNREFUSED');
      expect(drain.exitCodeWhileDraining).toBeNull();
      expect(drain.second).toMatch(/^HTTP\/1\.1 200 /);
      expect(drain.second).toMatch(/\r\nConnection: close\r\n/i);
      expect(drain.second).toContain('"server":"relay.example"');

      expect(await sandbox.running.exited).toEqual({ code: 0, signal: null });
      await sandbox.running.waitForLog('stopped');
      // The one line it prints once it serves (start-output.test.ts); no web_dir, no chat app.
      expect(sandbox.running.stderr()).toBe(
        `handle-relay ready: http://127.0.0.1:${port}/ (API reference: http://127.0.0.1:${port}/docs)\n`,
      );
    },
    START_TIMEOUT_MS,
  );
});
