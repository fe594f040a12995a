import { OwnRenames } from './own-renames.js';

describe('OwnRenames', () => {
  it('recognises an announced rename once, and only within five seconds', () => {
    let now = 1_000;
    const renames = new OwnRenames(() => now);
    renames.announce('a.bin');
    renames.announce('b.bin');
    expect(renames.consume('a.bin')).toBe(true);
    expect(renames.consume('a.bin')).toBe(false);
    expect(renames.consume('other.bin')).toBe(false);
    now += 5_001;
    expect(renames.consume('b.bin')).toBe(false);
  });

  it('forgets announcements nobody consumed once they expire', () => {
    let now = 0;
    const renames = new OwnRenames(() => now);
    renames.announce('stale.bin');
    now += 6_000;
    renames.announce('fresh.bin');
    now -= 6_000;
    // Had the stale entry survived, this (impossible) clock would make it count again.
    expect(renames.consume('stale.bin')).toBe(false);
    now += 6_000;
    expect(renames.consume('fresh.bin')).toBe(true);
  });
});
