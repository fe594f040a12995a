import { createHash, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/** The lock's file in the folder. */
const LOCK_FILE = 'service.lock';

/** How long a start waits for another process to finish removing a stale lock. */
const TAKEOVER_WAIT_MS = 10_000;

/** Who holds a folder, as its lock file says. */
interface LockOwner {
  pid: number;
  host: string;
  /** The kernel's boot id (Linux), so a lock from before a reboot is known as such. */
  boot: string;
  /** Tells this holder's lock from a later one's when releasing. */
  token: string;
}

/** Folders this process holds: a pid in a lock file can be ours from an earlier life. */
const held = new Set<string>();

function bootId(): string {
  try {
    return fs.readFileSync('/proc/sys/kernel/random/boot_id', 'utf8').trim();
  } catch {
    return '';
  }
}

/**
 * Takes a folder for this process, or throws naming the process that has it. The embedded
 * database has no lock of its own, and two processes writing one folder each overwrite the
 * other's commits. A lock left on this host by a process that is gone (a crash, a reboot,
 * a container restarted with the same pid) is taken over; one written on another host (a
 * second container on the same volume) is never, since its process cannot be checked from
 * here. Returns the release.
 */
export function lockFolder(dir: string): () => void {
  const key = fs.realpathSync(dir);
  const file = path.join(key, LOCK_FILE);
  const me: LockOwner = {
    pid: process.pid,
    host: os.hostname(),
    boot: bootId(),
    token: randomBytes(8).toString('hex'),
  };
  const draft = `${file}.${me.token}`;
  fs.writeFileSync(draft, JSON.stringify(me));
  const giveUpAt = Date.now() + TAKEOVER_WAIT_MS;
  try {
    for (;;) {
      try {
        // A link appears whole, so no one reads a lock half written.
        fs.linkSync(draft, file);
        held.add(key);
        return () => release(key, file, me.token);
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      }
      const found = readLock(file);
      if (found === undefined) continue;
      const owner = parseOwner(found);
      if (owner && !isStale(owner, key, me)) {
        const where = owner.host === me.host ? '' : ` on host ${owner.host}`;
        throw new Error(
          `the database folder ${key} is in use by process ${owner.pid}${where} ` +
            `(if that process is gone, delete ${file})`,
        );
      }
      if (!removeStale(file, found, draft, key, me)) {
        if (Date.now() > giveUpAt) {
          throw new Error(`another process is taking over the stale lock ${file}; try again`);
        }
        pause(1);
      }
    }
  } finally {
    fs.rmSync(draft, { force: true });
  }
}

/**
 * Removes the stale lock whose text is `judged`, unless another process is at it; answers
 * whether it was this one. Processes that start together all find the same stale lock, and
 * a plain delete by each could remove the lock one of them has just made. So only the one
 * that creates the lock's break mark (named after the stale text) deletes it, and only
 * while the lock still reads so: no one else deletes a lock with that text, and a stale
 * lock never comes back. A mark whose maker is gone (it died at this) is cleared.
 */
function removeStale(
  file: string,
  judged: string,
  draft: string,
  key: string,
  me: LockOwner,
): boolean {
  const mark = `${file}.break.${createHash('sha256').update(judged).digest('hex').slice(0, 16)}`;
  try {
    fs.linkSync(draft, mark);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    const maker = parseOwner(readLock(mark) ?? '');
    if (!maker || isStale(maker, key, me)) fs.rmSync(mark, { force: true });
    return false;
  }
  try {
    if (readLock(file) === judged) fs.rmSync(file, { force: true });
  } finally {
    fs.rmSync(mark, { force: true });
  }
  return true;
}

/** Blocks this thread for `ms` (a lock is taken once, at start-up, before serving). */
function pause(ms: number): void {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}

function release(key: string, file: string, token: string): void {
  held.delete(key);
  // Only our own lock: after a takeover the file may be another process's.
  const found = readLock(file);
  if (found !== undefined && parseOwner(found)?.token === token) fs.rmSync(file, { force: true });
}

/** The lock file's text, or undefined when there is none. */
function readLock(file: string): string | undefined {
  try {
    return fs.readFileSync(file, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw err;
  }
}

/** The lock's owner, or undefined for a text that is not a lock of ours. */
function parseOwner(text: string): LockOwner | undefined {
  try {
    const owner = JSON.parse(text) as Partial<LockOwner> | null;
    if (typeof owner?.pid !== 'number' || typeof owner.host !== 'string') return undefined;
    return {
      pid: owner.pid,
      host: owner.host,
      boot: String(owner.boot ?? ''),
      token: String(owner.token ?? ''),
    };
  } catch {
    return undefined;
  }
}

function isStale(owner: LockOwner, key: string, me: LockOwner): boolean {
  if (owner.host !== me.host) return false;
  if (owner.boot !== me.boot) return true;
  if (owner.pid === me.pid) return !held.has(key);
  return !isRunning(owner.pid);
}

function isRunning(pid: number): boolean {
  if (!Number.isSafeInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    // EPERM: it runs, under another user.
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}
