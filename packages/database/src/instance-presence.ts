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

/** Delays between tries to hold the presence again after its connection was lost. */
const RECONNECT_MS = [250, 500, 1_000, 2_000, 5_000];

/**
 * Presence across instances on one PostgreSQL server: a session-level advisory lock on the
 * instance's id, held on a connection of its own. The server drops it the moment that
 * connection or its process dies, so no heartbeat or lease expiry is needed. An instance is
 * gone when its lock can be taken; the probe gives it straight back.
 * A connection lost while the process lives (the server restarted, the network cut) is
 * replaced, and the lock taken again, by itself: until then other instances see this one as
 * gone (as they must: its lock is free), and `isGone` waits for the new connection rather
 * than failing on the dead one.
 */
export class AdvisoryPresence implements InstancePresence {
  readonly id = randomUUID();
  #session: Promise<pg.Client>;
  /** The connection holding the lock now; undefined while one is being made. */
  #current: pg.Client | undefined;
  #closed = false;

  private constructor(
    private readonly url: string,
    private readonly namespace: string,
  ) {
    this.#session = this.#connect();
  }

  /** Connects and takes this instance's lock; `namespace` keeps services apart. */
  static async hold(url: string, namespace: string): Promise<AdvisoryPresence> {
    const presence = new AdvisoryPresence(url, namespace);
    await presence.#session;
    return presence;
  }

  async #connect(): Promise<pg.Client> {
    const session = new pg.Client({
      connectionString: this.url,
      application_name: `${this.namespace} presence`,
    });
    // A lost connection must not crash the process: it is replaced (see the class).
    session.on('error', () => this.#lost(session));
    session.on('end', () => this.#lost(session));
    try {
      await session.connect();
      await session.query('select pg_advisory_lock($1::bigint)', [this.#key(this.id)]);
      this.#current = session;
    } catch (err) {
      session.removeAllListeners('end');
      await session.end().catch(() => undefined);
      throw err;
    }
    return session;
  }

  /**
   * The connection in use ended unasked (its 'error' and its 'end' both say so, and both make
   * one new connection): a new one is tried until one holds the lock.
   */
  #lost(session: pg.Client): void {
    if (this.#closed || session !== this.#current) return;
    this.#current = undefined;
    this.#session = this.#reconnect();
  }

  async #reconnect(): Promise<pg.Client> {
    for (let attempt = 0; ; attempt++) {
      await new Promise((resolve) => setTimeout(resolve, RECONNECT_MS[Math.min(attempt, 4)]));
      if (this.#closed) throw new Error('presence closed');
      try {
        return await this.#connect();
      } catch {
        // The server still away: the next try, later.
      }
    }
  }

  async isGone(id: string): Promise<boolean> {
    if (id === this.id) return false;
    const key = this.#key(id);
    for (let tries = 0; ; tries++) {
      const session = await this.#session;
      try {
        const { rows } = await session.query<{ got: boolean }>(
          'select pg_try_advisory_lock($1::bigint) as got',
          [key],
        );
        if (!rows[0]?.got) return false;
        await session.query('select pg_advisory_unlock($1::bigint)', [key]);
        return true;
      } catch (err) {
        // The connection died under the probe (its 'error' comes with the failure): once
        // more on the connection that replaces it. Any other failure is the caller's.
        await new Promise((resolve) => setImmediate(resolve));
        if (tries > 0 || (await this.#session) === session) throw err;
      }
    }
  }

  async close(): Promise<void> {
    this.#closed = true;
    const session = await this.#session.catch(() => undefined);
    await session?.end().catch(() => undefined);
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
