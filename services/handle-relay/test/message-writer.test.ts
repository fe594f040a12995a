import { sql } from 'kysely';
import request from 'supertest';
import type { RelayedMessage } from '../src/messages/message.model.js';
import { registerHandle, uniqueHandle } from './handle-factories.js';
import { recorder } from './pubsub.contract.js';
import { createTestApp, useTestApp } from './test-app.js';

const t = useTestApp('writer');

function write(recipient: string, envelope: unknown) {
  return t.relay.writer.send({
    recipient,
    envelope: JSON.stringify(envelope),
    created_at: new Date(),
  });
}

async function storedSeqs(recipient: string): Promise<number[]> {
  const { rows } = await sql<{ seq: number }>`
    select seq from handle_relay.message where recipient = ${recipient} order by seq
  `.execute(t.store.db);
  return rows.map((r) => Number(r.seq));
}

describe('the batched message writer', () => {
  it('numbers one batch of sends in the order they were queued and delivers them in that order', async () => {
    const alice = await registerHandle(t.app, t.config.server);
    const heard = recorder();
    const off = t.relay.pubsub.subscribe(alice.handle, heard);
    try {
      const stored = await Promise.all(
        Array.from({ length: 50 }, (_, n) => write(alice.handle, { n })),
      );
      const seqs = stored.map((s) => s.message.seq);
      expect(seqs).toEqual([...seqs].sort((a, b) => a - b));
      expect(stored.map((s) => JSON.parse(s.message.envelopeJson) as unknown)).toEqual(
        Array.from({ length: 50 }, (_, n) => ({ n })),
      );
      expect(heard.got).toEqual(stored.map((s): RelayedMessage => s.message));
      expect(await storedSeqs(alice.handle)).toEqual(seqs);
    } finally {
      off();
    }
  });

  it('fails only the send to an unknown recipient when it shares a batch with others', async () => {
    const alice = await registerHandle(t.app, t.config.server);
    const ghost = uniqueHandle('ghost');
    const results = await Promise.allSettled([
      write(alice.handle, 'first'),
      write(ghost, 'lost'),
      write(alice.handle, 'second'),
    ]);
    expect(results.map((r) => r.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
    expect((results[1] as PromiseRejectedResult).reason).toMatchObject({
      status: 404,
      code: 'not_found',
      message: 'handle not found',
    });
    const kept = results.filter((r) => r.status === 'fulfilled').map((r) => r.value.message.seq);
    expect(await storedSeqs(alice.handle)).toEqual(kept);
    expect(await storedSeqs(ghost)).toEqual([]);
  });

  it('stores every queued send before it stops, and answers later sends with 503', async () => {
    const own = await createTestApp('writer_stop');
    try {
      const bob = await registerHandle(own.app, own.config.server);
      const queued = Array.from({ length: 20 }, (_, n) =>
        own.relay.writer.send({ recipient: bob.handle, envelope: `${n}`, created_at: new Date() }),
      );
      await own.relay.writer.stop();
      expect(await Promise.all(queued)).toHaveLength(20);
      const res = await request(own.app)
        .post('/v1/messages')
        .send({ to: bob.handle, envelope: 'late' })
        .expect(503);
      expect(res.body).toEqual({
        error: { code: 'unavailable', message: 'the server is shutting down' },
      });
    } finally {
      await own.close();
    }
  });
});
