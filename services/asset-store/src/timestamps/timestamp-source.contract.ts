import type { TimestampSource } from './timestamp-issuer.js';

/** Makes a fresh source reading `clock`, over an index whose newest asset is `indexMax`. */
export type MakeTimestampSource = (
  clock: () => number,
  indexMax: number,
) => Promise<TimestampSource>;

/**
 * The behaviour every TimestampSource adapter must show (the contract's clock rule); the
 * in-process issuer and the database allocator both run it.
 */
export function timestampSourceContract(name: string, make: MakeTimestampSource): void {
  describe(`timestamp source contract: ${name}`, () => {
    it('follows the clock, and uses the last one plus 1 when the clock stands still or goes back', async () => {
      const readings = [100, 100, 99, 150, 150];
      const source = await make(() => readings.shift() ?? 0, 0);
      const issued = [];
      for (let i = 0; i < 5; i++) issued.push(await source.next());
      expect(issued).toEqual([100, 101, 102, 150, 151]);
    });

    it('never reuses a timestamp the index already holds', async () => {
      const source = await make(() => 10, 5000);
      await expect(source.next()).resolves.toBe(5001);
    });

    it('gives concurrent callers distinct values, increasing in the order they asked', async () => {
      const source = await make(() => 7, 0);
      const all = await Promise.all(Array.from({ length: 300 }, () => source.next()));
      expect(all).toEqual(Array.from({ length: 300 }, (_, i) => 7 + i));
    });
  });
}
