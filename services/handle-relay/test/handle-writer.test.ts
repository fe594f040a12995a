import type { KyselyPlugin } from 'kysely';
import { primaryOf } from '../src/client/index.js';
import { HandleWriter } from '../src/handles/handle-writer.js';
import type { NewRegistration } from '../src/handles/handle.repository.js';
import { handleRows, registration, uniqueHandle } from './handle-factories.js';
import { useTestApp } from './test-app.js';

const t = useTestApp('handle_writer');

/** A writer over the test database that counts the statements it runs (by their results). */
function countingWriter(): { writer: HandleWriter; statements: () => number } {
  let n = 0;
  const counter: KyselyPlugin = {
    transformQuery: (args) => args.node,
    transformResult: (args) => {
      n += 1;
      return Promise.resolve(args.result);
    },
  };
  return { writer: new HandleWriter(t.store.db.withPlugin(counter)), statements: () => n };
}

function newReg(handle = uniqueHandle('row'), primary?: string): NewRegistration {
  const keys = registration('relay.test', handle).keys;
  const primaryKey = primary ?? primaryOf(keys.publicKey);
  return {
    row: {
      handle,
      primary_key: primaryKey,
      registered_at: new Date(1_800_000_000_000),
      proofs: [],
    },
    eldestLine: JSON.stringify({ handle: `${handle}@relay.test`, key: primaryKey }),
  };
}

describe('the batched handle writer', () => {
  it('stores rows that arrive together with a few shared transactions', async () => {
    const { writer, statements } = countingWriter();
    const regs = Array.from({ length: 30 }, () => newReg());
    expect(await Promise.all(regs.map((r) => writer.tryInsert(r)))).toEqual(
      Array<boolean>(30).fill(true),
    );
    // At most three batches of four statements each (the tree's size, root and frontier
    // read, one statement writing the handles, links, nodes and the tree's new size and root
    // if the tree is still as read; both again when it moved on), not several per row.
    expect(statements()).toBeLessThanOrEqual(12);
    for (const r of regs) expect(await handleRows(t.store.db, r.row.handle)).toEqual([r.row]);
    // Each stored row's eldest link went into the log with it.
    const links = await t.store.db
      .selectFrom('sigchain_link')
      .select(['handle', 'line'])
      .where(
        'handle',
        'in',
        regs.map((r) => r.row.handle),
      )
      .execute();
    expect(new Set(links.map((l) => l.line))).toEqual(new Set(regs.map((r) => r.eldestLine)));
  });

  it('answers false for a row whose handle or primary is taken, stored or in the same batch', async () => {
    const { writer } = countingWriter();
    const stored = newReg();
    expect(await writer.tryInsert(stored)).toBe(true);
    const sameHandle = newReg(stored.row.handle);
    const samePrimary = newReg(uniqueHandle('again'), stored.row.primary_key);
    const twin = newReg();
    const twinHandle = newReg(twin.row.handle);
    const results = await Promise.all(
      [sameHandle, twin, samePrimary, twinHandle].map((r) => writer.tryInsert(r)),
    );
    expect(results).toEqual([false, true, false, false]);
    expect(await handleRows(t.store.db, stored.row.handle)).toEqual([stored.row]);
    expect(await handleRows(t.store.db, twin.row.handle)).toEqual([twin.row]);
    expect(await handleRows(t.store.db, samePrimary.row.handle)).toEqual([]);
  });
});
