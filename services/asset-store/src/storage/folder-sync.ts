import fs from 'node:fs';

/**
 * fsync on a file: its content, size and attributes reach the disk. Only the fsync, the
 * one step that waits for the disk, goes to the thread pool; opening and closing an
 * existing file are quick syscalls.
 */
export async function fsyncFile(file: string): Promise<void> {
  const fd = fs.openSync(file, 'r+');
  try {
    await new Promise<void>((resolve, reject) =>
      fs.fsync(fd, (err) => (err ? reject(err) : resolve())),
    );
  } finally {
    fs.closeSync(fd);
  }
}

/**
 * fsync on a folder: makes a rename or unlink in it durable (a no-op where unsupported).
 * Opening and closing are quick syscalls; only the fsync goes to the thread pool.
 */
export async function fsyncDirectory(dir: string): Promise<void> {
  let fd: number;
  try {
    fd = fs.openSync(dir, 'r');
  } catch (err) {
    if (isUnsupported(err)) return;
    throw err;
  }
  try {
    await new Promise<void>((resolve, reject) =>
      fs.fsync(fd, (err) => (err && !isUnsupported(err) ? reject(err) : resolve())),
    );
  } finally {
    fs.closeSync(fd);
  }
}

/** Windows cannot open or fsync folders; a rename is as durable as it gets there. */
function isUnsupported(err: unknown): boolean {
  const code = (err as NodeJS.ErrnoException).code;
  return code === 'EISDIR' || code === 'EPERM' || code === 'EINVAL';
}

/**
 * Group commit for one folder's entries: `sync()` resolves once an fsync of the folder that
 * began after the call has finished, so it covers every rename done before the call.
 * Callers that arrive while an fsync runs share the next one, so concurrent ingests pay
 * one folder fsync per round instead of one each.
 */
export class FolderSync {
  #running: Promise<void> | undefined;
  #next: Promise<void> | undefined;

  constructor(private readonly dir: string) {}

  /** Waits for a folder fsync that covers everything renamed into it so far. */
  sync(): Promise<void> {
    if (!this.#running) return this.#start();
    // The running fsync may have begun before the caller's rename: wait for the next one.
    this.#next ??= this.#running
      .catch(() => undefined)
      .then(() => {
        this.#next = undefined;
        return this.#start();
      });
    return this.#next;
  }

  #start(): Promise<void> {
    const round: Promise<void> = fsyncDirectory(this.dir).finally(() => {
      if (this.#running === round) this.#running = undefined;
    });
    this.#running = round;
    return round;
  }
}
