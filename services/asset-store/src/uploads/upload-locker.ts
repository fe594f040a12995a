import { AsyncLocalStorage } from 'node:async_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Lock, Locker } from '@tus/utils';
import { assetErrors } from '../errors.js';

/** A request waits this long for an upload another request holds; then 423. */
export const LOCK_WAIT_MS = 1_000;

/** The method of the tus request being handled (HEAD takes no lock). */
const method = new AsyncLocalStorage<string>();

/** Runs `fn` as the handling of a request made with `requestMethod`. */
export function withRequestMethod<T>(requestMethod: string, fn: () => Promise<T>): Promise<T> {
  return method.run(requestMethod, fn);
}

/**
 * One request at a time writes an upload, and the one writing keeps it until its body ends.
 * Hand-written because @tus/server's MemoryLocker hands the upload to whoever asks next,
 * cutting the holder's connection mid-body after 3 s (its body half kept, its client told
 * nothing): a second PATCH at the same offset here waits up to `LOCK_WAIT_MS` for the first,
 * then answers 423 (or 409, the offset having moved meanwhile). A holder whose client went
 * away lets go once its request ends (a dropped connection, or the body-rate floor and idle
 * limit of the server). HEAD reads the offset without waiting (a read of a file's size).
 */
export class UploadLocker implements Locker {
  readonly #held = new Map<string, Promise<void>>();

  constructor(private readonly waitMs = LOCK_WAIT_MS) {}

  newLock(id: string): Lock {
    const held = this.#held;
    const waitMs = this.waitMs;
    let release: (() => void) | undefined;
    return {
      async lock(stop: AbortSignal): Promise<void> {
        if (method.getStore() === 'HEAD') return;
        const until = Date.now() + waitMs;
        for (;;) {
          const holder = held.get(id);
          if (!holder) break;
          const left = until - Date.now();
          if (left <= 0 || stop.aborted) throw assetErrors.uploadBusy();
          await Promise.race([holder, sleep(left, undefined, { signal: stop }).catch(() => {})]);
        }
        let done!: () => void;
        held.set(id, new Promise<void>((resolve) => (done = resolve)));
        release = () => {
          held.delete(id);
          done();
        };
      },
      unlock(): Promise<void> {
        release?.();
        release = undefined;
        return Promise.resolve();
      },
    };
  }
}
