import path from 'node:path';
import { testDatabaseMode } from '@svc/testing';
import {
  freePort,
  spawnService,
  stopIfRunning,
  waitUntil,
  type ServiceProcess,
} from '@svc/testing/service-process';
import { useServiceSandbox } from '@svc/testing/service-sandbox';
import { generateKeyPair, RelayClient } from '../src/client/index.js';

const ENTRY = path.resolve(import.meta.dirname, '..', 'src', 'main.ts');
// Two starts of the whole service through tsx.
const TIMEOUT_MS = 120_000;
const SERVER = 'relay.example';

const sandbox = useServiceSandbox('handle-relay-instances-');
const started: ServiceProcess[] = [];
afterEach(async () => {
  for (const service of started.splice(0)) await stopIfRunning(service);
});

// Skipped on the embedded database: two relays share limits only through a PostgreSQL server
// (an embedded folder is one process's).
const onServer = testDatabaseMode() === 'postgres' ? describe : describe.skip;

onServer('two relays on one PostgreSQL database', () => {
  it(
    'spend one rate limit per client address: a burst spent across both is refused by both',
    async () => {
      const url = (await sandbox.serverDatabaseUrl('relay_instances'))!;
      const bases = await Promise.all(
        [0, 1].map(async (i) => {
          const port = await freePort();
          const config = sandbox.configFile(
            [
              `bind: 127.0.0.1:${port}`,
              `db: ${url}`,
              `server: ${SERVER}`,
              `vapid_key_path: ./vapid-${i}.json`,
              // A burst of 10, then one every 6 s.
              'rate_limit_per_minute: 10',
              'log_level: warn',
              '',
            ].join('\n'),
            `relay-${i}.yaml`,
          );
          started.push(spawnService(ENTRY, [config]));
          return `http://127.0.0.1:${port}`;
        }),
      );
      await Promise.all(
        bases.map((baseUrl) =>
          waitUntil(async () => (await new RelayClient({ baseUrl }).health()).status === 'ok'),
        ),
      );
      const keys = generateKeyPair();
      await new RelayClient({ baseUrl: bases[0]! }).register(SERVER, 'shared-limit', keys);
      const send = (base: string, n: number) =>
        fetch(`${base}/v1/messages`, {
          method: 'POST',
          headers: { 'Content-Type': 'application/json' },
          body: JSON.stringify({ to: 'shared-limit', envelope: { n } }),
        });

      const statuses: number[] = [];
      const burstStarted = Date.now();
      for (let n = 0; n < 10; n++) statuses.push((await send(bases[n % 2]!, n)).status);
      expect(statuses).toEqual(Array.from({ length: 10 }, () => 201));
      for (const base of bases) {
        const res = await send(base, 99);
        expect(res.status).toBe(429);
        // One token comes back every 6 s from the burst's first send: the wait left is 6 s less
        // the whole seconds since then (a slow machine spends a second or more on the burst).
        const elapsed = Math.floor((Date.now() - burstStarted) / 1000);
        const retryAfter = Number(res.headers.get('retry-after'));
        expect(retryAfter).toBeGreaterThanOrEqual(Math.max(1, 6 - elapsed - 1));
        expect(retryAfter).toBeLessThanOrEqual(6);
        expect(await res.json()).toEqual({
          error: { code: 'rate_limited', message: 'too many requests' },
        });
      }
      // Only the ten allowed sends were kept.
      const page = await new RelayClient({ baseUrl: bases[1]! }).inbox('shared-limit', keys);
      expect(page.messages.map((m) => m.envelope)).toEqual(
        Array.from({ length: 10 }, (_, n) => ({ n })),
      );
    },
    TIMEOUT_MS,
  );
});
