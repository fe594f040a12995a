import fs from 'node:fs';
import path from 'node:path';

/** The lock's file in the folder: the holding process's pid. */
const LOCK_FILE = 'service.lock';

/** Folders this process holds: a pid in a lock file can be ours from an earlier life. */
const held = new Set<string>();

/**
 * Takes a folder for this process, or throws naming the live process that has it. The
 * embedded database has no lock of its own, and two processes writing one folder each
 * overwrite the other's commits. A lock whose process is gone (a crash, a container that
 * restarted with the same pid) is taken over. Best effort: two processes taking over one
 * stale lock at the same instant could both win. Returns the release.
 */
export function lockFolder(dir: string): () => void {
  const key = path.resolve(dir);
  const file = path.join(key, LOCK_FILE);
  for (;;) {
    try {
      fs.writeFileSync(file, String(process.pid), { flag: 'wx' });
      held.add(key);
      return () => {
        held.delete(key);
        fs.rmSync(file, { force: true });
      };
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    }
    const holder = Number(readOrEmpty(file));
    const ours = holder === process.pid;
    if ((ours && held.has(key)) || (!ours && isRunning(holder))) {
      throw new Error(`the database folder ${key} is in use by process ${holder}`);
    }
    fs.rmSync(file, { force: true });
  }
}

function readOrEmpty(file: string): string {
  try {
    return fs.readFileSync(file, 'utf8').trim();
  } catch {
    return '';
  }
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
