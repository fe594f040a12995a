import type { KyselyPlugin } from 'kysely';
import { primaryOf } from '../src/client/index.js';
import { HandleWriter } from '../src/handles/handle-writer.js';
import type { NewHandleRow } from '../src/handles/handle.table.js';
import { handleRows, registration, uniqueHandle } from './handle-factories.js';
import { useTestApp } from './test-app.js';

const t = useTestApp('handle_writer');

/** A writer over the test database that counts the statements it sends. */
function countingWriter(): { writer: HandleWriter; statements: () => number } {
  let n = 0;
  const counter: KyselyPlugin = {
    transformQuery: (args) => {
      n += 1;
      return args.node;
    },
    transformResult: (args) => Promise.resolve(args.result),
  };
  return { writer: new HandleWriter(t.store.db.withPlugin(counter)), statements: () => n };
}

function newRow(handle = uniqueHandle('row'), primary?: string): NewHandleRow {
  const keys = registration('relay.test', handle).keys;
  return {
    handle,
    primary_key: primary ?? primaryOf(keys.publicKey),
    registered_at: new Date(1_800_000_000_000),
    proofs: [],
  };
}

describe('the batched handle writer', () => {
  it('stores rows that arrive together with a few shared statements', async () => {
    const { writer, statements } = countingWriter();
    const rows = Array.from({ length: 30 }, () => newRow());
    expect(await Promise.all(rows.map((r) => writer.tryInsert(r)))).toEqual(
      Array<boolean>(30).fill(true),
    );
    expect(statements()).toBeLessThanOrEqual(3);
    for (const r of rows) expect(await handleRows(t.store.db, r.handle)).toEqual([r]);
  });

  it('answers false for a row whose handle or primary is taken, stored or in the same batch', async () => {
    const { writer } = countingWriter();
    const stored = newRow();
    expect(await writer.tryInsert(stored)).toBe(true);
    const sameHandle = newRow(stored.handle);
    const samePrimary = newRow(uniqueHandle('again'), stored.primary_key);
    const twin = newRow();
    const twinHandle = newRow(twin.handle);
    const results = await Promise.all(
      [sameHandle, twin, samePrimary, twinHandle].map((r) => writer.tryInsert(r)),
    );
    expect(results).toEqual([false, true, false, false]);
    expect(await handleRows(t.store.db, stored.handle)).toEqual([stored]);
    expect(await handleRows(t.store.db, twin.handle)).toEqual([twin]);
    expect(await handleRows(t.store.db, samePrimary.handle)).toEqual([]);
  });
});
