import { advisoryLockKey, type DatabaseTarget } from '@svc/database';
import pg from 'pg';
import { releaseSolo, reserveTimestamps, tryHoldSolo } from './timestamp-allocator.repository.js';

/**
 * Timestamps reserved in the row at a time: also the most by which another instance may
 * find the row ahead of its clock when it takes the row back.
 */
const RESERVE = 100;
/** When an instance tries going solo (`SoloIssuer`); tests lower them. */
export interface SoloTiming {
  /** Shared allocations it makes first (one round trip each). */
  tryAfter: number;
  /** How long after giving the row back it waits before trying again. */
  retryAfterMs: number;
}

const TIMING: SoloTiming = { tryAfter: 200, retryAfterMs: 10_000 };

interface Waiter {
  /** The clock when it asked: its timestamp is at least this (the clock rule). */
  reading: number;
  resolve: (timestamp: number | undefined) => void;
}

/** The solo lock and its channel, by which instances agree on who issues (see `SoloIssuer`). */
export interface SoloHandle {
  key: string;
  channel: string;
}

/** The solo lock and channel of the service whose index lives in `schema`. */
export function soloHandle(schema: string): SoloHandle {
  return {
    key: advisoryLockKey(`${schema}.timestamps.solo`),
    channel: `${schema}_timestamps_wanted`,
  };
}

/**
 * The solo issuer for an index on a server, which other instances may share; none for the
 * embedded database (one process: its own issuer). Whoever opened the index closes it.
 */
export function soloIssuerFor(index: {
  target: DatabaseTarget;
  schema: string;
}): SoloIssuer | undefined {
  return index.target.kind === 'postgres'
    ? new SoloIssuer(index.target.url, index.schema)
    : undefined;
}

/**
 * Lets a lone instance issue timestamps from memory instead of one round trip to the
 * shared row per group of ingests (issue 27: what the row costs one instance). It holds an
 * advisory lock exclusively on a connection of its own (`state` "on") and reserves a block of
 * timestamps in the row ahead of what it issues, renewed before it runs out: whatever
 * happens to this process, the row stays above every timestamp it issued, so no instance
 * can ever issue one twice.
 *
 * Every shared allocation takes the lock shared for its transaction, so it cannot run while
 * an instance is solo. It then notifies the channel and waits for the lock; the solo
 * instance, which listens, stops issuing from memory at once (its callers from then on go
 * to the row, behind the other instance) and gives the lock back. Each timestamp it issued
 * came before that, and is below the reserve's top, which the other instance then issues
 * above: one order across all instances still. An instance that does not let go within 2 s
 * has its lock's session ended by the one waiting (`TimestampAllocator`). A rebuild holds the
 * lock shared too (`withTimestampFence`), as it brings in timestamps that are not issued.
 *
 * Should the solo connection drop, the server frees the lock; this instance stops issuing
 * from memory when its client reports the loss. Until then its timestamps stay unique (the
 * reserve), though one may come out below another instance's if that one allocated
 * meanwhile.
 */
export class SoloIssuer {
  readonly #handle: SoloHandle;
  #client: pg.Client | undefined;
  readonly #timing: SoloTiming;
  #state: 'off' | 'entering' | 'on' = 'off';
  /** The latest clock reading a caller brought: reserves start there. */
  #reading = 0;
  #last = 0;
  #top = 0;
  #renewing = false;
  #waiting: Waiter[] = [];
  #shared = 0;
  #retryAt = 0;
  #closed = false;

  constructor(
    private readonly url: string,
    private readonly schema: string,
    timing: Partial<SoloTiming> = {},
  ) {
    this.#handle = soloHandle(schema);
    this.#timing = { ...TIMING, ...timing };
  }

  get handle(): SoloHandle {
    return this.#handle;
  }

  /** True while this instance issues from memory, or is about to (callers then ask `next`). */
  get issuing(): boolean {
    return this.#state !== 'off';
  }

  /** A shared allocation was made: after enough of them, this instance tries going solo. */
  countShared(): void {
    this.#shared++;
  }

  /** Whether to try going solo now (`enter`); the caller also checks its own queue is idle. */
  get wantsToEnter(): boolean {
    return (
      this.#state === 'off' &&
      !this.#closed &&
      this.#shared >= this.#timing.tryAfter &&
      performance.now() >= this.#retryAt
    );
  }

  /** Takes the lock if free and reserves a block; callers meanwhile wait in `next`. */
  async enter(): Promise<void> {
    this.#state = 'entering';
    try {
      const client = await this.#connect();
      if (!(await tryHoldSolo(client, this.#handle))) return this.#stop(false);
      if (this.#state !== 'entering') return;
      const top = await reserveTimestamps(client, this.#reading, RESERVE);
      // Wanted back or lost meanwhile: `#stop` already sent the lock back.
      if (this.#state !== 'entering') return;
      this.#last = top - RESERVE;
      this.#top = top;
      this.#state = 'on';
      this.#serve();
    } catch {
      this.#drop();
    }
  }

  /**
   * The next timestamp from memory, in the order asked; undefined when this instance does
   * not issue (or stopped while the caller waited): the caller then asks the row.
   */
  next(clock: () => number): Promise<number | undefined> {
    if (this.#state === 'off') return Promise.resolve(undefined);
    // Read once per timestamp, as the row's allocation does.
    const reading = Math.floor(clock());
    this.#reading = Math.max(this.#reading, reading);
    if (this.#state === 'on' && this.#waiting.length === 0) {
      const timestamp = this.#take(reading);
      if (timestamp !== undefined) return Promise.resolve(timestamp);
    }
    return new Promise<number | undefined>((resolve) => {
      this.#waiting.push({ reading, resolve });
      this.#renew();
    });
  }

  /** Gives the lock back and closes its connection (shutdown). */
  async close(): Promise<void> {
    this.#closed = true;
    const client = this.#client;
    this.#stop(true);
    this.#client = undefined;
    await client?.end().catch(() => undefined);
  }

  /** The clock rule within the reserve; renews it once half is used. */
  #take(reading: number): number | undefined {
    const timestamp = Math.max(reading, this.#last + 1);
    if (timestamp > this.#top) return undefined;
    this.#last = timestamp;
    if (this.#top - timestamp < RESERVE / 2) this.#renew();
    return timestamp;
  }

  #serve(): void {
    while (this.#state === 'on' && this.#waiting.length > 0) {
      const timestamp = this.#take(this.#waiting[0]!.reading);
      if (timestamp === undefined) return this.#renew();
      this.#waiting.shift()!.resolve(timestamp);
    }
  }

  #renew(): void {
    const client = this.#client;
    if (this.#renewing || this.#state !== 'on' || !client) return;
    this.#renewing = true;
    reserveTimestamps(client, this.#reading, RESERVE).then(
      (top) => {
        this.#renewing = false;
        if (this.#state !== 'on' || this.#client !== client) return;
        this.#top = Math.max(this.#top, top);
        this.#serve();
      },
      () => {
        this.#renewing = false;
        this.#drop();
      },
    );
  }

  /**
   * Stops issuing from memory at once, hands the waiting callers to the row, and (`release`)
   * sends the lock back, behind whatever this connection still runs.
   */
  #stop(release: boolean): void {
    if (this.#state === 'off') return;
    this.#state = 'off';
    this.#shared = 0;
    this.#retryAt = performance.now() + this.#timing.retryAfterMs;
    for (const waiter of this.#waiting.splice(0)) waiter.resolve(undefined);
    const client = this.#client;
    if (release && client) releaseSolo(client, this.#handle.key).catch(() => this.#drop());
  }

  /** The connection is gone or unusable: the server frees the lock with it. */
  #drop(): void {
    this.#stop(false);
    const client = this.#client;
    this.#client = undefined;
    client?.end().catch(() => undefined);
  }

  async #connect(): Promise<pg.Client> {
    if (this.#client) return this.#client;
    const client = new pg.Client({
      connectionString: this.url,
      options: `-c search_path=${this.schema}`,
      application_name: `${this.schema} timestamps`,
      // Callers wait while it connects: a server that does not answer sends them to the row.
      connectionTimeoutMillis: 5_000,
    });
    client.on('notification', (message) => {
      if (message.channel === this.#handle.channel) this.#stop(true);
    });
    const lost = () => {
      if (this.#client === client) this.#drop();
    };
    client.on('error', lost);
    client.on('end', lost);
    this.#client = client;
    try {
      await client.connect();
    } catch (err) {
      lost();
      throw err;
    }
    return client;
  }
}
