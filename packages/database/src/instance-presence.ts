import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { advisoryLockKey } from './instance-lock.js';
import type { DatabaseTarget } from './open-database.js';

/**
 * The port: this instance's presence on its database, held for its lifetime under a random
 * id, and whether another instance's still is. Work an instance records under its id (a
 * job row) is orphaned once that instance is gone.
 */
export interface InstancePresence {
  /** This instance's id, held until `close`. */
  readonly id: string;
  /** Whether the instance `id` no longer holds its presence (it stopped, crashed, or lost its connection). */
  isGone(id: string): Promise<boolean>;
  /** Gives the presence up. */
  close(): Promise<void>;
}

/**
 * Presence within one process: enough for the embedded database, which one process at a time
 * owns (its folder lock), so every instance but this one is gone.
 */
export class ProcessPresence implements InstancePresence {
  readonly id = randomUUID();

  isGone(id: string): Promise<boolean> {
    return Promise.resolve(id !== this.id);
  }

  close(): Promise<void> {
    return Promise.resolve();
  }
}

/**
 * Presence across instances on one PostgreSQL server: a session-level advisory lock on the
 * instance's id, held on a connection of its own. The server drops it the moment that
 * connection or its process dies, so no heartbeat or lease expiry is needed. An instance is
 * gone when its lock can be taken; the probe gives it straight back.
 */
export class AdvisoryPresence implements InstancePresence {
  readonly id = randomUUID();

  private constructor(
    private readonly session: pg.Client,
    private readonly namespace: string,
  ) {}

  /** Connects and takes this instance's lock; `namespace` keeps services apart. */
  static async hold(url: string, namespace: string): Promise<AdvisoryPresence> {
    const session = new pg.Client({
      connectionString: url,
      application_name: `${namespace} presence`,
    });
    // A lost connection must not crash the process; the lock is then gone (see `isGone`).
    session.on('error', () => undefined);
    await session.connect();
    const presence = new AdvisoryPresence(session, namespace);
    await session.query('select pg_advisory_lock($1::bigint)', [presence.#key(presence.id)]);
    return presence;
  }

  async isGone(id: string): Promise<boolean> {
    if (id === this.id) return false;
    const key = this.#key(id);
    const { rows } = await this.session.query<{ got: boolean }>(
      'select pg_try_advisory_lock($1::bigint) as got',
      [key],
    );
    if (!rows[0]?.got) return false;
    await this.session.query('select pg_advisory_unlock($1::bigint)', [key]);
    return true;
  }

  async close(): Promise<void> {
    await this.session.end().catch(() => undefined);
  }

  #key(id: string): string {
    return advisoryLockKey(`${this.namespace}.instance.${id}`);
  }
}

/** This instance's presence on this database: advisory on a server, in-process when embedded. */
export async function holdInstancePresence(handle: {
  target: DatabaseTarget;
  schema: string;
}): Promise<InstancePresence> {
  return handle.target.kind === 'postgres'
    ? AdvisoryPresence.hold(handle.target.url, handle.schema)
    : new ProcessPresence();
}
