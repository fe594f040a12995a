/**
 * Runs tasks one at a time per key, in call order, different keys in parallel. Sends to one
 * recipient queue here rather than on the database lock, so a burst to one hot recipient
 * holds one pooled connection instead of all of them.
 */
export class KeyedSerializer {
  readonly #tails = new Map<string, Promise<unknown>>();

  /** Runs `task` after every earlier task of `key` settled. */
  run<T>(key: string, task: () => Promise<T>): Promise<T> {
    const previous = this.#tails.get(key) ?? Promise.resolve();
    const result = previous.then(task, task);
    const tail = result.then(
      () => undefined,
      () => undefined,
    );
    this.#tails.set(key, tail);
    void tail.then(() => {
      if (this.#tails.get(key) === tail) this.#tails.delete(key);
    });
    return result;
  }

  /** Keys with work queued or running (tests). */
  get size(): number {
    return this.#tails.size;
  }
}
