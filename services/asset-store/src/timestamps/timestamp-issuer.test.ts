import { TimestampIssuer } from './timestamp-issuer.js';

// The clock rule itself: timestamp-source.contract.ts, which this issuer runs too.
describe('the in-process timestamp issuer', () => {
  it('give concurrent callers distinct values and seed only once', async () => {
    let seeds = 0;
    const issuer = new TimestampIssuer(
      () => 7,
      () => {
        seeds++;
        return Promise.resolve(0);
      },
    );
    const all = await Promise.all(Array.from({ length: 50 }, () => issuer.next()));
    expect(new Set(all).size).toBe(50);
    expect(seeds).toBe(1);
  });

  it('retry the seed after it failed', async () => {
    let calls = 0;
    const issuer = new TimestampIssuer(
      () => 1,
      () => (++calls === 1 ? Promise.reject(new Error('down')) : Promise.resolve(40)),
    );
    await expect(issuer.next()).rejects.toThrow('down');
    await expect(issuer.next()).resolves.toBe(41);
  });
});
