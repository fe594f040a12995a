import { sql } from 'kysely';
import { primaryOf, toHex } from '../src/client/index.js';
import type { HandleRecord } from '../src/handles/handle-record.js';
import { handleRows, postRegistration, registration, uniqueHandle } from './handle-factories.js';
import { useTestApp } from './test-app.js';

// Registrations arriving together are stored by shared statements; these bursts check that
// each claim still gets exactly the answer and the row it would get alone.

const SERVER = 'relay.test';
const NOW_MS = 1_800_000_000_500;
const NOW_S = Math.floor(NOW_MS / 1000);

const t = useTestApp('registration_burst', {}, { clockMs: NOW_MS });

const post = (body: unknown) => postRegistration(t.app, body);
const conflict = (message: string) => ({ error: { code: 'conflict', message } });

function recordFor(handle: string, publicKey: Uint8Array): HandleRecord {
  return {
    handle,
    fqhn: `${handle}@${SERVER}`,
    primary: primaryOf(publicKey),
    sigchain_url: `http://localhost:8090/v1/sigchains/ed25519/${toHex(publicKey)}`,
    registered_at: new Date(NOW_MS).toISOString(),
    proofs: [],
  };
}

describe('POST /v1/register: a burst of claims', () => {
  it('answers every distinct claim with 201 and its own record, and stores each', async () => {
    const claims = Array.from({ length: 40 }, () =>
      registration(SERVER, uniqueHandle('burst'), { ts: NOW_S }),
    );
    const results = await Promise.all(claims.map((c) => post(c.body)));
    results.forEach((res, i) => {
      const { keys, body } = claims[i]!;
      expect(res.status).toBe(201);
      expect(res.body).toEqual(recordFor(body.payload.handle, keys.publicKey));
    });
    for (const { keys, body } of claims) {
      expect(await handleRows(t.store.db, body.payload.handle)).toEqual([
        {
          handle: body.payload.handle,
          primary_key: primaryOf(keys.publicKey),
          registered_at: new Date(NOW_MS),
          proofs: [],
        },
      ]);
    }
  });

  it('refuses only the claims of a taken handle or of a primary that owns one', async () => {
    const owner = registration(SERVER, uniqueHandle('owner'), { ts: NOW_S });
    await post(owner.body).expect(201);
    const takenHandle = registration(SERVER, owner.body.payload.handle, { ts: NOW_S });
    const ownerAgain = registration(SERVER, uniqueHandle('second'), {
      keys: owner.keys,
      ts: NOW_S,
    });
    const fresh = Array.from({ length: 10 }, () =>
      registration(SERVER, uniqueHandle('fresh'), { ts: NOW_S }),
    );
    const all = [...fresh.slice(0, 5), takenHandle, ...fresh.slice(5), ownerAgain];
    const results = await Promise.all(all.map((c) => post(c.body)));
    expect(results.map((r) => r.status)).toEqual([
      ...Array<number>(5).fill(201),
      409,
      ...Array<number>(5).fill(201),
      409,
    ]);
    expect(results[5]?.body).toEqual(
      conflict(`handle ${owner.body.payload.handle} is already claimed`),
    );
    expect(results[11]?.body).toEqual(conflict('this primary already owns a handle'));
    expect(await handleRows(t.store.db, owner.body.payload.handle)).toEqual([
      expect.objectContaining({ primary_key: primaryOf(owner.keys.publicKey) }),
    ]);
    expect(await handleRows(t.store.db, ownerAgain.body.payload.handle)).toEqual([]);
    for (const c of fresh) {
      expect(await handleRows(t.store.db, c.body.payload.handle)).toHaveLength(1);
    }
  });

  it('stores the others when one claim breaks the statement they share', async () => {
    const doomed = uniqueHandle('doomed');
    await sql`alter table handle_relay.handle add constraint test_doomed check (handle <> ${sql.lit(doomed)})`.execute(
      t.store.db,
    );
    try {
      const others = Array.from({ length: 8 }, () =>
        registration(SERVER, uniqueHandle('bystander'), { ts: NOW_S }),
      );
      const claims = [
        ...others.slice(0, 4),
        registration(SERVER, doomed, { ts: NOW_S }),
        ...others.slice(4),
      ];
      const results = await Promise.all(claims.map((c) => post(c.body)));
      expect(results.map((r) => r.status)).toEqual([201, 201, 201, 201, 400, 201, 201, 201, 201]);
      expect(results[4]?.body).toEqual({
        error: { code: 'bad_request', message: 'invalid value' },
      });
      for (const c of others) {
        expect(await handleRows(t.store.db, c.body.payload.handle)).toHaveLength(1);
      }
      expect(await handleRows(t.store.db, doomed)).toEqual([]);
    } finally {
      await sql`alter table handle_relay.handle drop constraint test_doomed`.execute(t.store.db);
    }
  });
});
