import { InFlight, type InFlightEntry } from './in-flight.js';

describe('InFlight', () => {
  it('lists what was added and not removed, newest first', () => {
    const list = new InFlight<string>();
    const entries = ['a', 'b', 'c', 'd', 'e'].map((v) => list.add(v));
    expect(list.values()).toEqual(['e', 'd', 'c', 'b', 'a']);

    list.remove(entries[2]!); // middle
    expect(list.values()).toEqual(['e', 'd', 'b', 'a']);
    list.remove(entries[4]!); // newest
    expect(list.values()).toEqual(['d', 'b', 'a']);
    list.remove(entries[0]!); // oldest
    expect(list.values()).toEqual(['d', 'b']);

    list.add('f');
    expect(list.values()).toEqual(['f', 'd', 'b']);
    list.remove(entries[1]!);
    list.remove(entries[3]!);
    expect(list.values()).toEqual(['f']);
  });

  it('ignores a second removal of the same entry', () => {
    const list = new InFlight<string>();
    const a = list.add('a');
    list.add('b');
    list.remove(a);
    list.remove(a);
    expect(list.values()).toEqual(['b']);
  });

  it('leaves a removed entry holding no value and no neighbour', () => {
    const list = new InFlight<object>();
    const entries: InFlightEntry<object>[] = [{}, {}, {}].map((v) => list.add(v));
    list.remove(entries[1]!);
    expect(entries[1]).toEqual({ value: undefined, prev: undefined, next: undefined });
    expect(list.values()).toEqual([{}, {}]);
  });

  it('hands out a copy that removals while using it do not change', () => {
    const list = new InFlight<string>();
    const entries = ['a', 'b', 'c'].map((v) => list.add(v));
    const seen: string[] = [];
    for (const value of list.values()) {
      seen.push(value);
      for (const entry of entries) list.remove(entry);
    }
    expect(seen).toEqual(['c', 'b', 'a']);
    expect(list.values()).toEqual([]);
  });
});
