import type { InstanceLock } from './instance-lock.js';

/** Two holders of one lock, as two instances would have them. */
export type MakeLockPair = () => [InstanceLock, InstanceLock];

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** The behaviour every InstanceLock adapter must show; each adapter's test runs it. */
export function instanceLockContract(name: string, make: MakeLockPair): void {
  describe(`instance lock contract: ${name}`, () => {
    it('runs work while free, answers its value, and is free again after, also after a failure', async () => {
      const [a, b] = make();
      await expect(a.tryRun(() => Promise.resolve(42))).resolves.toEqual({ ran: true, value: 42 });
      await expect(a.tryRun(() => Promise.reject(new Error('boom')))).rejects.toThrow('boom');
      await expect(b.tryRun(() => Promise.resolve('b'))).resolves.toEqual({
        ran: true,
        value: 'b',
      });
      await expect(b.run(() => Promise.resolve('run'))).resolves.toBe('run');
    });

    it('refuses a second holder while the first runs', async () => {
      const [a, b] = make();
      let release!: () => void;
      const held = new Promise<void>((resolve) => (release = resolve));
      let started!: () => void;
      const running = new Promise<void>((resolve) => (started = resolve));
      const first = a.tryRun(async () => {
        started();
        await held;
        return 'first';
      });
      await running;
      await expect(b.tryRun(() => Promise.resolve('second'))).resolves.toEqual({ ran: false });
      release();
      await expect(first).resolves.toEqual({ ran: true, value: 'first' });
      await expect(b.tryRun(() => Promise.resolve('later'))).resolves.toEqual({
        ran: true,
        value: 'later',
      });
    });

    it('makes a waiting holder wait, so no two runs overlap', async () => {
      const [a, b] = make();
      const spans: [string, number, number][] = [];
      const work = (who: string) => async () => {
        const start = performance.now();
        await pause(60);
        spans.push([who, start, performance.now()]);
      };
      await Promise.all([
        a.run(work('a1')),
        b.run(work('b1')),
        a.run(work('a2')),
        b.run(work('b2')),
      ]);
      expect(spans.map(([who]) => who).sort()).toEqual(['a1', 'a2', 'b1', 'b2']);
      spans.sort((x, y) => x[1] - y[1]);
      for (let i = 1; i < spans.length; i++) {
        expect(spans[i]![1]).toBeGreaterThanOrEqual(spans[i - 1]![2]);
      }
    });
  });
}
