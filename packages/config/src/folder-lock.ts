import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/** The lock's file in the folder. */
const LOCK_FILE = 'service.lock';

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
      takeOver(file, found, me.token);
    }
  } finally {
    fs.rmSync(draft, { force: true });
  }
}

/**
 * Removes the stale lock `judged` (its text) so that the next link can take the folder.
 * Processes that start together all find the same stale lock: a plain delete could then
 * remove the lock one of them has just made, and both would run. So the lock is first
 * moved aside, which only one of them can do to any one file, and a lock moved aside that
 * is not the stale one (another process took over first) is put back.
 */
function takeOver(file: string, judged: string, token: string): void {
  const aside = `${file}.${token}.stale`;
  try {
    fs.renameSync(file, aside);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return;
    throw err;
  }
  try {
    if (readLock(aside) !== judged) fs.linkSync(aside, file);
  } catch (err) {
    // A third process linked its lock in the moment the file was away, and runs beside the
    // one whose lock this moved: the case this cannot settle, three starts within
    // microseconds of one another. The caller's next look finds that third lock.
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
  } finally {
    fs.rmSync(aside, { force: true });
  }
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
