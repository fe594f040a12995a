import { isLockTimeout, type InstanceLock, type LockOutcome } from '@svc/database';
import pg from 'pg';
import { endSoloHolderOn, holdSoloShared } from './timestamp-allocator.repository.js';
import { soloHandle } from './timestamp-solo.js';

/** One wait for a solo instance to stop; asked again after it (it may have missed it). */
const WAIT_MS = 250;
/** Waits after which the session of a solo instance that does not let go is ended (2 s). */
const WAITS_BEFORE_ENDING = 8;

/**
 * `lock` with the timestamps fenced while its work runs: no instance on the server issues
 * from memory meanwhile (`SoloIssuer`), so every timestamp comes from the row, which sees
 * what the work indexed. For rebuilds, which bring in timestamps from files.
 */
export function withTimestampFence(lock: InstanceLock, url: string, schema: string): InstanceLock {
  const fenced =
    <T>(work: () => Promise<T>) =>
    () =>
      holdingFence(url, schema, work);
  return {
    tryRun: <T>(work: () => Promise<T>): Promise<LockOutcome<T>> => lock.tryRun(fenced(work)),
    run: <T>(work: () => Promise<T>): Promise<T> => lock.run(fenced(work)),
  };
}

async function holdingFence<T>(url: string, schema: string, work: () => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: url, application_name: `${schema} fence` });
  // A lost connection must not crash the process; its query or `end` reports it.
  client.on('error', () => undefined);
  await client.connect();
  try {
    const solo = soloHandle(schema);
    for (let wait = 1; ; wait++) {
      try {
        await holdSoloShared(client, solo, WAIT_MS);
        break;
      } catch (err) {
        if (!isLockTimeout(err)) throw err;
        if (wait % WAITS_BEFORE_ENDING === 0) await endSoloHolderOn(client, solo.key);
      }
    }
    return await work();
  } finally {
    await client.end().catch(() => undefined);
  }
}
