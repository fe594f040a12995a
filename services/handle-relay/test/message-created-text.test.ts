import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { migrateToLatest, openDatabase, type DatabaseHandle } from '@svc/database';
import { createTestDatabase, type TestDatabase } from '@svc/testing';
import { createLogger } from '@svc/envelope';
import { sql } from 'kysely';
import request from 'supertest';
import { createApp } from '../src/app.js';
import { authLines, generateKeyPair, signedAuthValue } from '../src/client/index.js';
import { configSchema } from '../src/config.js';
import { SCHEMA, type Database } from '../src/db/database.js';
import { migrations } from '../src/db/migrations/index.js';
import { createRelayRuntime, type RelayRuntime } from '../src/runtime.js';
import { SETUP_TIMEOUT_MS } from './test-app.js';

const ADDED_BY = '20261123100000_message_created_text';
const before = Object.fromEntries(Object.entries(migrations).filter(([name]) => name < ADDED_BY));

let testDb: TestDatabase;
let store: DatabaseHandle<Database>;
let relay: RelayRuntime | undefined;
let dataDir: string;
beforeAll(async () => {
  testDb = await createTestDatabase('relay_created_text');
  store = await openDatabase<Database>(testDb.target, SCHEMA);
  dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'handle-relay-created-text-'));
}, SETUP_TIMEOUT_MS);
afterAll(async () => {
  await relay?.close();
  await store.close();
  await testDb.drop();
  fs.rmSync(dataDir, { recursive: true, force: true });
}, SETUP_TIMEOUT_MS);

describe('messages stored before created_text existed', () => {
  it('get the text clients are sent, and inbox pages show it', async () => {
    await migrateToLatest(store.db, SCHEMA, before);
    const keys = generateKeyPair();
    const primary = `ed25519:${Buffer.from(keys.publicKey).toString('hex')}`;
    await sql`insert into handle (handle, primary_key, registered_at, proofs)
      values ('old-timer', ${primary}, now(), '{}')`.execute(store.db);
    // A session time zone other than UTC must not leak into the text.
    await sql`set time zone 'America/St_Johns'`.execute(store.db);
    const times = [
      '2026-11-21T10:00:00.000Z',
      '2026-11-21T10:00:00.500Z',
      '1999-12-31T23:59:59.999Z',
      '2026-02-28T23:00:00.007Z',
    ];
    for (const [i, at] of times.entries()) {
      await sql`insert into message (recipient, envelope, created_at)
        values ('old-timer', ${`{"n":${i}}`}, ${at})`.execute(store.db);
    }

    await migrateToLatest(store.db, SCHEMA, migrations);
    const { rows } = await sql<{ created_text: string }>`
      select created_text from message order by seq`.execute(store.db);
    expect(rows.map((r) => r.created_text)).toEqual(times);

    const config = configSchema.parse({
      server: 'relay.test',
      vapid_key_path: path.join(dataDir, 'vapid.json'),
      log_key_path: path.join(dataDir, 'log-key.json'),
      log_level: 'silent',
    });
    const logger = createLogger('handle-relay-test', 'silent');
    relay = await createRelayRuntime({ config, store, logger, now: Date.now });
    const app = createApp({
      config,
      db: store.db,
      ping: store.ping,
      logger,
      version: '0.1.0',
      now: Date.now,
      relay,
    });
    const auth = signedAuthValue(keys.secretKey, authLines.inbox('old-timer', 0));
    const res = await request(app).get('/v1/inbox/old-timer').set('X-ID-Auth', auth).expect(200);
    const first = Number((res.body as { messages: { seq: number }[] }).messages[0]?.seq);
    expect(res.body).toEqual({
      messages: times.map((at, i) => ({ seq: first + i, envelope: { n: i }, created_at: at })),
      next_since: first + 3,
      has_more: false,
    });
  });
});
