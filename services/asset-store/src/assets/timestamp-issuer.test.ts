import { TimestampIssuer } from './timestamp-issuer.js';

describe('timestamps', () => {
  it('are strictly increasing even when the clock stands still or goes back', async () => {
    const readings = [100, 100, 99, 150, 150];
    const issuer = new TimestampIssuer(
      () => readings.shift() ?? 0,
      () => Promise.resolve(0),
    );
    const issued = [];
    for (let i = 0; i < 5; i++) issued.push(await issuer.next());
    expect(issued).toEqual([100, 101, 102, 150, 151]);
  });

  it('never reuse one the index already holds', async () => {
    const issuer = new TimestampIssuer(
      () => 10,
      () => Promise.resolve(5000),
    );
    await expect(issuer.next()).resolves.toBe(5001);
  });

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
