import { createLogger } from '@svc/envelope';
import { sql } from 'kysely';
import request from 'supertest';
import { startRetention, sweepExpiredMessages } from '../src/retention/retention.worker.js';
import { registerHandle } from './handle-factories.js';
import { useTestApp } from './test-app.js';

const DAY = 86_400_000;
const logger = createLogger('retention-test', 'silent');
const t = useTestApp('retention');

async function sendAt(at: number, to: string, envelope: unknown): Promise<number> {
  t.clock.fixedMs = at;
  try {
    const res = await request(t.app).post('/v1/messages').send({ to, envelope }).expect(201);
    return (res.body as { seq: number }).seq;
  } finally {
    t.clock.fixedMs = undefined;
  }
}

async function storedSeqs(recipient: string): Promise<number[]> {
  const { rows } = await sql<{ seq: number }>`
    select seq from handle_relay.message where recipient = ${recipient} order by seq
  `.execute(t.store.db);
  return rows.map((r) => r.seq);
}

describe('message retention', () => {
  it('deletes messages older than message_retention_days in batches and keeps newer ones', async () => {
    const now = Date.now();
    const alice = await registerHandle(t.app, t.config.server);
    for (let i = 0; i < 5; i++) await sendAt(now - 31 * DAY, alice.handle, `old ${i}`);
    const edge = await sendAt(now - 29 * DAY, alice.handle, 'within the period');
    const fresh = await sendAt(now, alice.handle, 'fresh');
    const deleted = await sweepExpiredMessages({
      db: t.store.db,
      logger,
      now: () => now,
      retentionDays: 30,
      batch: 2,
    });
    expect(deleted).toBe(5);
    expect(await storedSeqs(alice.handle)).toEqual([edge, fresh]);
  });

  it('keeps every message when message_retention_days is 0', async () => {
    const alice = await registerHandle(t.app, t.config.server);
    const old = await sendAt(Date.now() - 3650 * DAY, alice.handle, 'ancient');
    const deleted = await sweepExpiredMessages({
      db: t.store.db,
      logger,
      now: Date.now,
      retentionDays: 0,
    });
    expect(deleted).toBe(0);
    expect(await storedSeqs(alice.handle)).toEqual([old]);
    const worker = startRetention({ db: t.store.db, logger, now: Date.now, retentionDays: 0 });
    await worker.stop();
    expect(await storedSeqs(alice.handle)).toEqual([old]);
  });

  it('sweeps on start and again on every interval, and not after it stopped', async () => {
    const alice = await registerHandle(t.app, t.config.server);
    const longAgo = () => Date.now() - 40 * DAY;
    await sendAt(longAgo(), alice.handle, 'expired before start');
    const worker = startRetention({
      db: t.store.db,
      logger,
      now: Date.now,
      retentionDays: 30,
      intervalMs: 50,
    });
    try {
      await untilEmpty(alice.handle);
      await sendAt(longAgo(), alice.handle, 'expired after the first sweep');
      await untilEmpty(alice.handle);
    } finally {
      await worker.stop();
    }
    const kept = await sendAt(longAgo(), alice.handle, 'expired after stop');
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(await storedSeqs(alice.handle)).toEqual([kept]);
  });
});

async function untilEmpty(recipient: string): Promise<void> {
  const deadline = Date.now() + 5_000;
  while ((await storedSeqs(recipient)).length > 0) {
    if (Date.now() > deadline) throw new Error(`messages of ${recipient} were not swept`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
