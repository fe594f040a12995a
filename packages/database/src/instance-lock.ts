import { createHash } from 'node:crypto';
import pg from 'pg';
import type { DatabaseTarget } from './open-database.js';

/** What `tryRun` answers: the work's value, or that another holder had the lock. */
export type LockOutcome<T> = { ran: true; value: T } | { ran: false };

/** The port: work that runs on one instance (and in one call) at a time. */
export interface InstanceLock {
  /** Runs `work` holding the lock if it is free now; `{ ran: false }` when it is held. */
  tryRun<T>(work: () => Promise<T>): Promise<LockOutcome<T>>;
  /** Runs `work` holding the lock, waiting for it first. */
  run<T>(work: () => Promise<T>): Promise<T>;
}

/**
 * The lock within one process: enough for the embedded database, which one process at a
 * time owns (its folder lock). Waiters are served in the order they came.
 */
export class ProcessLock implements InstanceLock {
  #held = false;
  readonly #waiting: (() => void)[] = [];

  async tryRun<T>(work: () => Promise<T>): Promise<LockOutcome<T>> {
    if (this.#held) return { ran: false };
    this.#held = true;
    return { ran: true, value: await this.#holding(work) };
  }

  async run<T>(work: () => Promise<T>): Promise<T> {
    if (this.#held) await new Promise<void>((resolve) => this.#waiting.push(resolve));
    else this.#held = true;
    return this.#holding(work);
  }

  async #holding<T>(work: () => Promise<T>): Promise<T> {
    try {
      return await work();
    } finally {
      // Handed straight to the next waiter, so nobody can slip in between.
      const next = this.#waiting.shift();
      if (next) next();
      else this.#held = false;
    }
  }
}

/** A stable 64-bit advisory lock key for a name (schema-qualified, so services never clash). */
export function advisoryLockKey(name: string): string {
  return createHash('sha256').update(name).digest().readBigInt64BE(0).toString();
}

/**
 * The lock across every instance on one PostgreSQL server: a session-level advisory lock,
 * taken on a connection of its own for the work's duration and released by closing it.
 * Chosen over a lease row with an expiry: the server drops the lock the moment its
 * holder's connection or process dies, so there is no expiry to tune against a long scrub
 * and no stale lease after a crash. Should that connection drop mid-work, the lock is gone
 * and another instance may start while this one finishes; the work guarded here (scrubs,
 * rebuilds) is idempotent, so that costs time, never data.
 */
export class AdvisoryLock implements InstanceLock {
  readonly #key: string;

  constructor(
    private readonly url: string,
    private readonly name: string,
  ) {
    this.#key = advisoryLockKey(name);
  }

  async tryRun<T>(work: () => Promise<T>): Promise<LockOutcome<T>> {
    const session = await this.#open();
    try {
      const { rows } = await session.query<{ got: boolean }>(
        'select pg_try_advisory_lock($1::bigint) as got',
        [this.#key],
      );
      if (!rows[0]?.got) return { ran: false };
      return { ran: true, value: await work() };
    } finally {
      await session.end().catch(() => undefined);
    }
  }

  async run<T>(work: () => Promise<T>): Promise<T> {
    const session = await this.#open();
    try {
      await session.query('select pg_advisory_lock($1::bigint)', [this.#key]);
      return await work();
    } finally {
      await session.end().catch(() => undefined);
    }
  }

  async #open(): Promise<pg.Client> {
    const session = new pg.Client({
      connectionString: this.url,
      application_name: `${this.name} lock`,
    });
    // A lost connection must not crash the process; its query or `end` reports it.
    session.on('error', () => undefined);
    await session.connect();
    return session;
  }
}

/** The lock `name` for this database: across instances on a server, in-process when embedded. */
export function instanceLock(
  handle: { target: DatabaseTarget; schema: string },
  name: string,
): InstanceLock {
  return handle.target.kind === 'postgres'
    ? new AdvisoryLock(handle.target.url, `${handle.schema}.${name}`)
    : new ProcessLock();
}
