import { sql } from 'kysely';
import { GroupCommit, takeFront, type GroupCommitPolicy } from './group-commit.js';
import { openTestHandle, type Db } from './test-fixture.js';
import type { DatabaseHandle } from './open-database.js';

/** An entry of the fake writer: a number, answered with the batch that wrote it. */
interface Entry {
  n: number;
  answer: (batchNo: number) => void;
  refuse: (err: unknown) => void;
}

/** A writer whose writes finish only when the test says so. */
function heldWriter(overrides: Partial<GroupCommitPolicy<Entry>> = {}) {
  const batches: number[][] = [];
  const open: (() => void)[] = [];
  let inFlight = 0;
  let mostInFlight = 0;
  const commit = new GroupCommit<Entry>({
    maxInFlight: 1,
    take: (queue) => queue.splice(0, queue.length),
    write: async (batch) => {
      const no = batches.push(batch.map((e) => e.n)) - 1;
      inFlight += 1;
      mostInFlight = Math.max(mostInFlight, inFlight);
      await new Promise<void>((resolve) => open.push(resolve));
      inFlight -= 1;
      for (const e of batch) e.answer(no);
    },
    fail: (batch, err) => batch.forEach((e) => e.refuse(err)),
    ...overrides,
  });
  const add = (n: number) =>
    new Promise<number>((answer, refuse) => commit.add({ n, answer, refuse }));
  /** Finishes the oldest write still open, then lets the writer take its next batch. */
  const finishOne = async () => {
    open.shift()?.();
    await settle();
  };
  return { commit, add, batches, finishOne, mostInFlight: () => mostInFlight };
}

/** Lets promise callbacks and microtasks run. */
const settle = () => new Promise((resolve) => setImmediate(resolve));

describe('GroupCommit', () => {
  it('writes the first entry at once and those that arrive meanwhile as one batch', async () => {
    const w = heldWriter();
    const answers = [1, 2, 3, 4].map(w.add);
    expect(w.batches).toEqual([[1]]);
    await w.finishOne();
    expect(w.batches).toEqual([[1], [2, 3, 4]]);
    await w.finishOne();
    expect(await Promise.all(answers)).toEqual([0, 1, 1, 1]);
  });

  it('gathers the entries of one tick into the first batch when asked to', async () => {
    const w = heldWriter({ gather: 'tick' });
    const answers = [1, 2, 3].map(w.add);
    expect(w.batches).toEqual([]);
    await settle();
    expect(w.batches).toEqual([[1, 2, 3]]);
    await w.finishOne();
    expect(await Promise.all(answers)).toEqual([0, 0, 0]);
  });

  it('keeps at most maxInFlight batches in flight', async () => {
    const w = heldWriter({ maxInFlight: 2, take: (queue) => queue.splice(0, 1) });
    const answers = [1, 2, 3, 4, 5].map(w.add);
    expect(w.batches).toEqual([[1], [2]]);
    expect(w.commit.inFlight).toBe(2);
    expect(w.commit.queued).toBe(3);
    for (let i = 0; i < 5; i++) await w.finishOne();
    expect(await Promise.all(answers)).toEqual([0, 1, 2, 3, 4]);
    expect(w.mostInFlight()).toBe(2);
  });

  it('starts no write for a batch the policy answered itself', async () => {
    const w = heldWriter({
      take: (queue) => {
        const e = queue.shift()!;
        if (e.n < 0) {
          e.answer(-1);
          return [];
        }
        return [e];
      },
    });
    const answers = [-1, 1].map(w.add);
    expect(w.batches).toEqual([[1]]);
    await w.finishOne();
    expect(await Promise.all(answers)).toEqual([-1, 0]);
  });

  it('answers a batch whose write failed through the policy, and goes on with the next', async () => {
    let writes = 0;
    const w = heldWriter({
      write: (batch) => {
        writes += 1;
        if (writes === 1) return Promise.reject(new Error('lost'));
        batch.forEach((e) => e.answer(writes));
        return Promise.resolve();
      },
    });
    const first = w.add(1);
    const second = w.add(2);
    await expect(first).rejects.toThrow('lost');
    expect(await second).toBe(2);
  });

  it('takes requeued entries before later ones, once their batch settled', async () => {
    let release!: () => void;
    const seen: number[][] = [];
    const commit: GroupCommit<Entry> = new GroupCommit<Entry>({
      maxInFlight: 1,
      gather: 'tick',
      take: (queue) => queue.splice(0, queue.length),
      write: async (batch) => {
        const no = seen.push(batch.map((e) => e.n)) - 1;
        if (no === 0) {
          await new Promise<void>((resolve) => (release = resolve));
          commit.requeue(batch.slice(1));
          batch[0]!.answer(no);
          return;
        }
        batch.forEach((e) => e.answer(no));
      },
      fail: () => undefined,
    });
    const add = (n: number) =>
      new Promise<number>((answer, refuse) => commit.add({ n, answer, refuse }));
    const first = [add(1), add(2), add(3)];
    await settle();
    const later = add(4);
    await settle();
    release();
    expect(await Promise.all([...first, later])).toEqual([0, 1, 1, 1]);
    expect(seen).toEqual([
      [1, 2, 3],
      [2, 3, 4],
    ]);
  });

  it('is idle once nothing is queued or in flight', async () => {
    const w = heldWriter();
    await w.commit.idle();
    const answers = [1, 2].map(w.add);
    let idle = false;
    void w.commit.idle().then(() => (idle = true));
    await w.finishOne();
    expect(idle).toBe(false);
    await w.finishOne();
    expect(idle).toBe(true);
    await Promise.all(answers);
  });

  it('refuses a take that removes nothing from a non-empty queue', () => {
    const commit = new GroupCommit<number>({
      maxInFlight: 1,
      take: () => [],
      write: () => Promise.resolve(),
      fail: () => undefined,
    });
    expect(() => commit.add(1)).toThrow('take removed no entry');
  });
});

describe('takeFront', () => {
  it('takes up to maxItems from the front', () => {
    const queue = [1, 2, 3, 4, 5];
    expect(takeFront(queue, { maxItems: 3 })).toEqual([1, 2, 3]);
    expect(queue).toEqual([4, 5]);
  });

  it('stops before the entry that would pass the weight limit, yet always takes the first', () => {
    const queue = [5, 4, 3, 2];
    expect(takeFront(queue, { maxItems: 10, maxWeight: 10, weight: (n) => n })).toEqual([5, 4]);
    const heavy = [50, 1];
    expect(takeFront(heavy, { maxItems: 10, maxWeight: 10, weight: (n) => n })).toEqual([50]);
  });

  it('stops before an entry the caller marks', () => {
    const queue = [1, 2, -3, 4];
    expect(takeFront(queue, { maxItems: 10, stopBefore: (n) => n < 0 })).toEqual([1, 2]);
    expect(queue).toEqual([-3, 4]);
  });
});

describe('GroupCommit on a real database', () => {
  let handle: DatabaseHandle<Db>;
  let close: () => Promise<void>;
  beforeAll(async () => {
    ({ handle, close } = await openTestHandle('group_commit'));
  });
  afterAll(async () => {
    await close();
  });

  it('stores concurrent entries with a few multi-row statements, each acknowledged after its commit', async () => {
    interface Row {
      id: number;
      stored: () => void;
      failed: (err: unknown) => void;
    }
    let statements = 0;
    const commit = new GroupCommit<Row>({
      maxInFlight: 2,
      take: (queue) => takeFront(queue, { maxItems: 64 }),
      write: async (batch) => {
        statements += 1;
        await handle.db
          .insertInto('item')
          .values(batch.map((r) => ({ id: r.id, big: r.id * 10 })))
          .execute();
        for (const r of batch) r.stored();
      },
      fail: (batch, err) => batch.forEach((r) => r.failed(err)),
    });
    const ids = Array.from({ length: 200 }, (_, i) => 1000 + i);
    await Promise.all(
      ids.map((id) => new Promise<void>((stored, failed) => commit.add({ id, stored, failed }))),
    );
    expect(statements).toBeLessThanOrEqual(6);
    const { rows } = await sql<{ n: number }>`
      select count(*)::int as n from item where id >= 1000 and id < 1200
    `.execute(handle.db);
    expect(rows).toEqual([{ n: 200 }]);
  });

  it('fails only the batch whose statement the database refused', async () => {
    let writes = 0;
    const commit = new GroupCommit<{ id: number; done: (ok: boolean) => void }>({
      maxInFlight: 1,
      gather: 'tick',
      take: (queue) => takeFront(queue, { maxItems: 2 }),
      write: async (batch) => {
        writes += 1;
        await handle.db
          .insertInto('item')
          .values(batch.map((r) => ({ id: r.id, big: 0 })))
          .execute();
        for (const r of batch) r.done(true);
      },
      fail: (batch) => batch.forEach((r) => r.done(false)),
    });
    const add = (id: number) => new Promise<boolean>((done) => commit.add({ id, done }));
    // 2000 twice in one batch breaks the primary key: that batch fails as a whole.
    expect(await Promise.all([add(2000), add(2000), add(2001), add(2002)])).toEqual([
      false,
      false,
      true,
      true,
    ]);
    expect(writes).toBe(2);
  });
});
