import { unfinishedRequest } from '@svc/testing/raw-connection';
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { freePort, loadThenKill, spawnService, waitUntil } from '@svc/testing/service-process';
import { useServiceSandbox } from '@svc/testing/service-sandbox';
import { generateKeyPair, RelayClient, type InboxPage } from '../src/client/index.js';

const ENTRY = path.resolve(import.meta.dirname, '..', 'src', 'main.ts');
// Two starts of the whole service through tsx, and a few hundred sends between them.
const TIMEOUT_MS = 120_000;
const WORKERS = 8;
const ACKNOWLEDGED_BEFORE_KILL = 200;
const SERVER = 'relay.example';

interface Acknowledged {
  seq: number;
  created_at: string;
  envelope: { n: number; ct: string };
}

const sandbox = useServiceSandbox('handle-relay-crash-');

function waitUntilUp(client: RelayClient): Promise<void> {
  return waitUntil(async () => (await client.health()).status === 'ok');
}

describe('a relay killed (SIGKILL) in the middle of concurrent sends', () => {
  it(
    'still delivers every acknowledged message, once and in order, after a restart',
    async () => {
      // A server database outlives the killed process; the embedded one (the default) is
      // killed with it and must recover on its own.
      const database = (await sandbox.serverDatabaseUrl('relay_crash')) ?? './db';
      const port = await freePort();
      const config = sandbox.configFile(
        [
          `bind: 127.0.0.1:${port}`,
          `db: ${database}`,
          `server: ${SERVER}`,
          'vapid_key_path: ./vapid.json',
          'rate_limit_per_minute: 0',
          'log_level: warn',
          '',
        ].join('\n'),
      );
      const client = new RelayClient({ baseUrl: `http://127.0.0.1:${port}` });
      sandbox.running = spawnService(ENTRY, [config]);
      await waitUntilUp(client);
      const keys = generateKeyPair();
      await client.register(SERVER, 'crash-test', keys);

      // A send still arriving when the kill lands, whatever the timing of the load.
      const unfinished = await unfinishedRequest(
        port,
        'POST /v1/messages HTTP/1.1\r\nHost: 127.0.0.1\r\n' +
          'Content-Type: application/json\r\nContent-Length: 1000\r\n\r\n',
        '{"to":"crash-test","envelope":{"ct":"',
      );

      const victim = sandbox.running;
      const { acknowledged } = await loadThenKill(victim, {
        workers: WORKERS,
        killAfter: ACKNOWLEDGED_BEFORE_KILL,
        op: async (n): Promise<Acknowledged> => {
          const envelope = { n, ct: randomBytes(48).toString('base64') };
          return { ...(await client.send('crash-test', envelope)), envelope };
        },
      });
      expect(victim.child.signalCode).toBe('SIGKILL');
      expect(await unfinished.cutOff).toBe(true);

      sandbox.running = spawnService(ENTRY, [config]);
      await waitUntilUp(client);
      const delivered: InboxPage['messages'] = [];
      for (let since = 0; ;) {
        const page = await client.inbox('crash-test', keys, { since, limit: 500 });
        delivered.push(...page.messages);
        if (!page.has_more) break;
        since = page.next_since;
      }
      const seqs = delivered.map((m) => m.seq);
      expect(seqs).toEqual([...seqs].sort((a, b) => a - b));
      expect(new Set(seqs).size).toBe(seqs.length);
      const bySeq = new Map(delivered.map((m) => [m.seq, m]));
      expect(acknowledged.filter((a) => !bySeq.has(a.seq))).toEqual([]);
      for (const sent of acknowledged) {
        expect(bySeq.get(sent.seq)).toEqual({
          seq: sent.seq,
          envelope: sent.envelope,
          created_at: sent.created_at,
        });
      }
      const after = await client.send('crash-test', { n: -1, ct: 'after the restart' });
      expect(after.seq).toBeGreaterThan(Math.max(...seqs));
    },
    TIMEOUT_MS,
  );
});
