import { randomUUID } from 'node:crypto';
import pg from 'pg';
import type { Logger } from 'pino';

/** Told of each file this instance placed, with its `BlobStat.version` once durable. */
export interface PlacementAnnouncer {
  announce(hash: string, version: string): void;
}

/** Asked, once per watch event, what version another instance placed a file under. */
export interface PeerPlacements {
  /** The announced version of the file of `hash`, once; undefined when none was heard. */
  take(hash: string): string | undefined;
}

/** How often an instance says it listens, and how long a silent one still counts. */
const HELLO_EVERY_MS = 20_000;
const PEER_FORGOTTEN_MS = 3 * HELLO_EVERY_MS;
/** How long a notice waits for its watch event (which comes within the watch's debounce). */
const NOTICE_KEPT_MS = 60_000;
const NOTICES_KEPT = 50_000;
/** A `NOTIFY` payload is at most 8000 bytes; one line is a hash and a version (~110 bytes). */
const PAYLOAD_BYTES = 7_500;
const RECONNECT_MS = 1_000;
/**
 * How long placements gather before going out as one statement: each `NOTIFY` is a
 * transaction of the server's, and the watch that reads them waits 300 ms for quiet anyway.
 */
const GATHER_MS = 25;

const NOTIFY = 'select pg_notify($1, payload) from unnest($2::text[]) as payload';

/**
 * Instances sharing one storage folder tell each other of the files they place, through
 * PostgreSQL's `LISTEN/NOTIFY` on a connection of their own (`<schema> placements`), so
 * their watches need not read each one again (issue 27: on two instances, each re-hashing
 * the other's new files cost about as much as its own ingests). A notice names the file's
 * hash and its identity (size, inode, mtime, ctime) right after the placing instance made
 * it durable from bytes it hashed; a watch that finds the file still so takes it as
 * verified. Any change since moves its ctime, and the file is checked as before.
 *
 * Notices go out only while another instance listens: each says so on connecting and every
 * 20 s. A lost connection loses notices, never files: the watch then hashes those files.
 */
export class PlacementNotices implements PlacementAnnouncer, PeerPlacements {
  /** New on each connection, so peers answer a reconnected instance's hello as a new one's. */
  #id = randomUUID();
  readonly #channel: string;
  /** Hash → version and when heard; insertion order is time order. */
  readonly #heard = new Map<string, { version: string; at: number }>();
  /** Peer id → when it last said it listens. */
  readonly #peers = new Map<string, number>();
  #outgoing: string[] = [];
  /** The connection's queries, one after another (pg's client runs one at a time). */
  #queue: Promise<unknown> = Promise.resolve();
  #client: pg.Client | undefined;
  #hello: NodeJS.Timeout | undefined;
  #retry: NodeJS.Timeout | undefined;
  #closed = false;
  /** Whether the loss was logged since the last connection: one line per outage, not per try. */
  #lossLogged = false;

  private constructor(
    private readonly url: string,
    private readonly schema: string,
    private readonly logger: Pick<Logger, 'warn'>,
    private readonly now: () => number,
  ) {
    this.#channel = `${schema}_placed`;
  }

  /** Connects in the background; until then (or while cut off) nothing is sent or heard. */
  static start(
    url: string,
    schema: string,
    logger: Pick<Logger, 'warn'>,
    now: () => number = Date.now,
  ): PlacementNotices {
    const notices = new PlacementNotices(url, schema, logger, now);
    void notices.#connect();
    return notices;
  }

  /** Whether another instance said it listens within the last minute. */
  peersListening(): boolean {
    const since = this.now() - PEER_FORGOTTEN_MS;
    for (const [peer, at] of this.#peers) {
      if (at >= since) return true;
      this.#peers.delete(peer);
    }
    return false;
  }

  announce(hash: string, version: string): void {
    if (!this.#client || !this.peersListening()) return;
    if (this.#outgoing.length === 0) setTimeout(() => this.#send(), GATHER_MS).unref();
    this.#outgoing.push(`${hash} ${version}`);
  }

  take(hash: string): string | undefined {
    this.#expire();
    const notice = this.#heard.get(hash);
    if (!notice) return undefined;
    this.#heard.delete(hash);
    return notice.version;
  }

  async close(): Promise<void> {
    this.#closed = true;
    clearInterval(this.#hello);
    clearTimeout(this.#retry);
    const client = this.#client;
    this.#client = undefined;
    await client?.end().catch(() => undefined);
  }

  #send(): void {
    const lines = this.#outgoing;
    this.#outgoing = [];
    const payloads: string[] = [];
    let current = this.#id;
    for (const line of lines) {
      if (current.length + line.length + 1 > PAYLOAD_BYTES) {
        payloads.push(current);
        current = this.#id;
      }
      current += `\n${line}`;
    }
    payloads.push(current);
    this.#notify(payloads);
  }

  #notify(payloads: string[]): void {
    const client = this.#client;
    if (!client) return;
    // Not awaited: a lost notice only costs the peers a read of the file.
    this.#queue = this.#queue
      .then(() => client.query(NOTIFY, [this.#channel, payloads]))
      .catch(() => undefined);
  }

  #sayHello(): void {
    this.#notify([`hello ${this.#id}`]);
  }

  #heardPayload(payload: string): void {
    if (payload.startsWith('hello ')) {
      const peer = payload.slice(6);
      if (peer === this.#id) return;
      // A peer new to this instance learns of it at once, not at its next hello.
      const known = this.#peers.has(peer);
      this.#peers.set(peer, this.now());
      if (!known) this.#sayHello();
      return;
    }
    const lines = payload.split('\n');
    if (lines[0] === this.#id) return;
    const at = this.now();
    for (const line of lines.slice(1)) {
      const space = line.indexOf(' ');
      if (space > 0) this.#heard.set(line.slice(0, space), { version: line.slice(space + 1), at });
    }
    this.#expire();
  }

  #expire(): void {
    const oldest = this.now() - NOTICE_KEPT_MS;
    for (const [hash, notice] of this.#heard) {
      if (notice.at >= oldest && this.#heard.size <= NOTICES_KEPT) break;
      this.#heard.delete(hash);
    }
  }

  async #connect(): Promise<void> {
    if (this.#closed) return;
    const client = new pg.Client({
      connectionString: this.url,
      application_name: `${this.schema} placements`,
      connectionTimeoutMillis: 5_000,
    });
    client.on('notification', (message) => {
      if (message.channel === this.#channel && message.payload) this.#heardPayload(message.payload);
    });
    let lost = false;
    const reconnect = (err?: unknown) => {
      if (lost) return;
      lost = true;
      if (this.#client === client) this.#client = undefined;
      clearInterval(this.#hello);
      client.end().catch(() => undefined);
      if (this.#closed) return;
      if (!this.#lossLogged) this.logger.warn({ err }, 'placement notices cut off; reconnecting');
      this.#lossLogged = true;
      this.#retry = setTimeout(() => void this.#connect(), RECONNECT_MS);
      this.#retry.unref();
    };
    client.on('error', reconnect);
    client.on('end', () => reconnect());
    try {
      await client.connect();
      await client.query(`listen "${this.#channel}"`);
    } catch (err) {
      reconnect(err);
      return;
    }
    if (this.#closed) {
      await client.end().catch(() => undefined);
      return;
    }
    this.#client = client;
    this.#lossLogged = false;
    this.#id = randomUUID();
    this.#sayHello();
    this.#hello = setInterval(() => this.#sayHello(), HELLO_EVERY_MS);
    this.#hello.unref();
  }
}
