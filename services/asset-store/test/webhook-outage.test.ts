import { useDatabaseOutage } from '@svc/testing';
import { sql, type Kysely } from 'kysely';
import request from 'supertest';
import { API_BASE } from '../src/api-base.js';
import type { Database } from '../src/db/database.js';
import { ingestData } from './asset-helpers.js';
import { createTestApp } from './test-app.js';
import { WebhookReceiver } from './webhook-receiver.js';

const ADMIN = 'webhook-outage-admin';
// An outage needs a server to lose; the embedded database cannot go away under the process.
const outage = useDatabaseOutage((proxy) =>
  createTestApp(
    'webhook_outage',
    { admin_token: ADMIN, webhook_allow_private: true, webhook_retry_first_seconds: 0.2 },
    { proxy },
  ),
);
const { describeOnServer } = outage;

let receiver: WebhookReceiver | undefined;

/** The queue's length once no delivery is left in it (its outcome is written just after the receiver answers), within 5 s. */
async function settledQueue(db: Kysely<Database>): Promise<number> {
  const left = async () =>
    (await sql<{ n: number }>`select count(*)::int as n from webhook_delivery`.execute(db)).rows[0]!
      .n;
  for (let i = 0; i < 50 && (await left()) > 0; i++) {
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return left();
}
afterAll(() => receiver?.close());

describeOnServer('webhook leases across an index outage', () => {
  it('a delivery leased here but not being sent (its claim’s answer lost) is sent soon after the index is back, not after the whole minute’s lease', async () => {
    const t = outage.app();
    receiver = await WebhookReceiver.start();
    t.runtime.services.webhookDispatcher.start();
    const hook = await request(t.app)
      .post(`${API_BASE}/admin/webhooks`)
      .set({ Authorization: `Bearer ${ADMIN}` })
      .send({ url: receiver.url })
      .expect(201);
    receiver.secret = (hook.body as { data: { secret: string } }).data.secret;
    const { hash } = await ingestData(t.app, { data: { leased: true } });
    await receiver.until(() => receiver!.delivered.length === 1, 10_000);
    const [first] = receiver.delivered;

    // What a claim whose answer the outage swallowed leaves: the delivery owed again,
    // leased by this instance for a minute, and nothing of this instance sending it.
    const db = t.index.db;
    expect(await settledQueue(db)).toBe(0);
    const now = Date.now();
    await sql`
      insert into webhook_delivery (webhook_id, pos, hash, at, next_at, lease_until, lease_owner)
      values (${(hook.body as { data: { id: string } }).data.id}, ${Number(first!.id)}, ${hash},
              ${first!.event.at}, ${now}, ${now + 60_000}, ${t.presence.id})`.execute(db);

    await outage.proxy().cut();
    await new Promise((resolve) => setTimeout(resolve, 2_500));
    await outage.proxy().restore();
    await receiver.until(() => receiver!.delivered.length === 2, 15_000);
    expect(receiver.received.map((r) => ({ id: r.id, verified: r.verified }))).toEqual([
      { id: first!.id, verified: true },
      { id: first!.id, verified: true },
    ]);
    // Once its outcome is written, the queue holds nothing.
    expect(await settledQueue(db)).toBe(0);
  }, 60_000);
});
