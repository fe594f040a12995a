/** One value's place in an `InFlight` list; emptied when the value is removed. */
export interface InFlightEntry<T extends object> {
  value: T | undefined;
  prev: InFlightEntry<T> | undefined;
  next: InFlightEntry<T> | undefined;
}

/**
 * The values in flight right now (a server's open responses), each added and removed once.
 *
 * A doubly linked list rather than a `Set`, for the garbage collector. A `Set` that gains
 * and loses an entry per request rebuilds its table every few requests, and V8 leaves each
 * replaced table holding its entries and a link to its successor (for iterators still on
 * it). Once one replaced table has been promoted to the old generation, it keeps the next
 * alive through every young-generation collection, and that one the next, with each
 * response in them and everything the responses reference, until a full collection. Here
 * a removed entry lets go of everything, so nothing dead keeps anything alive.
 */
export class InFlight<T extends object> {
  #head: InFlightEntry<T> | undefined;

  add(value: T): InFlightEntry<T> {
    const entry: InFlightEntry<T> = { value, prev: undefined, next: this.#head };
    if (this.#head) this.#head.prev = entry;
    this.#head = entry;
    return entry;
  }

  /**
   * Removes the entry's value; a second call for the same entry does nothing (an emptied
   * entry is how a removed one is told apart, hence values are objects).
   */
  remove(entry: InFlightEntry<T>): void {
    if (entry.value === undefined) return;
    const { prev, next } = entry;
    if (prev) prev.next = next;
    else this.#head = next;
    if (next) next.prev = prev;
    entry.value = entry.prev = entry.next = undefined;
  }

  /** The values in flight now, newest first: a copy, so removing while using it is safe. */
  values(): T[] {
    const out: T[] = [];
    for (let entry = this.#head; entry; entry = entry.next) out.push(entry.value as T);
    return out;
  }
}
