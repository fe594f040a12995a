import { InFlight, type InFlightEntry } from './in-flight.js';

/** A named value to put in flight (values are objects, as responses are). */
const item = (name: string) => ({ name });
const names = (list: InFlight<{ name: string }>) => list.values().map((v) => v.name);

describe('InFlight', () => {
  it('lists what was added and not removed, newest first', () => {
    const list = new InFlight<{ name: string }>();
    const entries = ['a', 'b', 'c', 'd', 'e'].map((v) => list.add(item(v)));
    expect(names(list)).toEqual(['e', 'd', 'c', 'b', 'a']);

    list.remove(entries[2]!); // middle
    expect(names(list)).toEqual(['e', 'd', 'b', 'a']);
    list.remove(entries[4]!); // newest
    expect(names(list)).toEqual(['d', 'b', 'a']);
    list.remove(entries[0]!); // oldest
    expect(names(list)).toEqual(['d', 'b']);

    list.add(item('f'));
    expect(names(list)).toEqual(['f', 'd', 'b']);
    list.remove(entries[1]!);
    list.remove(entries[3]!);
    expect(names(list)).toEqual(['f']);
  });

  it('ignores a second removal of the same entry', () => {
    const list = new InFlight<{ name: string }>();
    const a = list.add(item('a'));
    list.add(item('b'));
    list.remove(a);
    list.remove(a);
    expect(names(list)).toEqual(['b']);
  });

  it('leaves a removed entry holding no value and no neighbour', () => {
    const list = new InFlight<object>();
    const values = [{}, {}, {}];
    const entries: InFlightEntry<object>[] = values.map((v) => list.add(v));
    list.remove(entries[1]!);
    expect(entries[1]).toEqual({ value: undefined, prev: undefined, next: undefined });
    const left = list.values();
    expect(left).toHaveLength(2);
    expect(left[0]).toBe(values[2]);
    expect(left[1]).toBe(values[0]);
  });

  it('hands out a copy that removals while using it do not change', () => {
    const list = new InFlight<{ name: string }>();
    const entries = ['a', 'b', 'c'].map((v) => list.add(item(v)));
    const seen: string[] = [];
    for (const value of list.values()) {
      seen.push(value.name);
      for (const entry of entries) list.remove(entry);
    }
    expect(seen).toEqual(['c', 'b', 'a']);
    expect(names(list)).toEqual([]);
  });
});
