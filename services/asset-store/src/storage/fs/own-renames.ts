/** How long an announced rename waits for its watch event; the event comes in milliseconds. */
const ECHO_WINDOW_MS = 5_000;

/**
 * Files the service itself has just renamed into the storage root. The watch reports each
 * such rename once; that first report is the service's own echo, and re-hashing a file
 * fsynced a moment ago proves nothing, so the watcher drops it. Any later change to the
 * path (a write, a replace, a delete) is reported and checked as usual. An announcement
 * no watch consumes (none running, or not yet ready) expires, so it can never hide a
 * later change.
 */
export class OwnRenames {
  /** Relative path → when it was announced (insertion order is time order). */
  readonly #announced = new Map<string, number>();

  constructor(private readonly now: () => number = Date.now) {}

  /** Call right before renaming a file to `relativePath` (relative to the root). */
  announce(relativePath: string): void {
    this.#expire();
    this.#announced.set(relativePath, this.now());
  }

  /** True, once, when a rename reported at `relativePath` is an announced one. */
  consume(relativePath: string): boolean {
    const at = this.#announced.get(relativePath);
    if (at === undefined) return false;
    this.#announced.delete(relativePath);
    return this.now() - at <= ECHO_WINDOW_MS;
  }

  #expire(): void {
    const oldest = this.now() - ECHO_WINDOW_MS;
    for (const [relativePath, at] of this.#announced) {
      if (at >= oldest) break;
      this.#announced.delete(relativePath);
    }
  }
}
