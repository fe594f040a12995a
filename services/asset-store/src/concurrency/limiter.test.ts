import { Limiter } from './limiter.js';
import { SingleFlight } from './single-flight.js';

function deferred() {
  let resolve!: () => void;
  const promise = new Promise<void>((r) => (resolve = r));
  return { promise, resolve };
}

describe('Limiter', () => {
  it('never runs more tasks at once than its limit, and runs them all', async () => {
    const limiter = new Limiter(2);
    let running = 0;
    let peak = 0;
    const gates = Array.from({ length: 6 }, deferred);
    const done = gates.map((g, i) =>
      limiter.run(async () => {
        running++;
        peak = Math.max(peak, running);
        await g.promise;
        running--;
        return i;
      }),
    );
    for (const g of gates) {
      await new Promise((r) => setImmediate(r));
      g.resolve();
    }
    expect(await Promise.all(done)).toEqual([0, 1, 2, 3, 4, 5]);
    expect(peak).toBe(2);
    expect(limiter.active).toBe(0);
  });

  it('frees the slot of a task that fails', async () => {
    const limiter = new Limiter(1);
    await expect(limiter.run(() => Promise.reject(new Error('boom')))).rejects.toThrow('boom');
    await expect(limiter.run(() => Promise.resolve('ok'))).resolves.toBe('ok');
  });
});

describe('SingleFlight', () => {
  it('shares one execution between concurrent callers of the same key', async () => {
    const flight = new SingleFlight<string, number>();
    let calls = 0;
    const gate = deferred();
    const work = async () => {
      calls++;
      await gate.promise;
      return 7;
    };
    const all = Promise.all([flight.do('a', work), flight.do('a', work), flight.do('b', work)]);
    gate.resolve();
    expect(await all).toEqual([7, 7, 7]);
    expect(calls).toBe(2);
    await flight.do('a', work);
    expect(calls).toBe(3);
  });
});
