import type { Kysely } from 'kysely';
import type { Logger } from 'pino';
import nacl from 'tweetnacl';
import { fromHex, toHex, utf8 } from '../client/hex.js';
import { LOG_ENTRIES_MAX } from '../client/http-client.js';
import { treeHeadMessage } from '../client/merkle.js';
import type { Database } from '../db/database.js';
import { relayErrors } from '../errors.js';
import type { LogKey } from './log-key.js';
import {
  findLeafWithSiblings,
  readEntries,
  readNodes,
  readTreeState,
  recordLogKey,
} from './log.repository.js';
import {
  consistencyRanges,
  inclusionRanges,
  nodeKey,
  rangeHash,
  rangeNodes,
  type Range,
} from './merkle-tree.js';

/** A signed tree head as served by `GET /v1/log/head`. */
export interface SignedTreeHead {
  size: number;
  root: string;
  timestamp: number;
  key: string;
  sig: string;
}

/** The widest range one `GET /v1/log/entries` serves (the clients' `LOG_ENTRIES_MAX`). */
export const MAX_ENTRIES = LOG_ENTRIES_MAX;

/** A head is signed again at most this often while the tree does not grow. */
const HEAD_REUSE_MS = 1000;

/**
 * Tree nodes kept in memory (about 100 bytes each). A complete subtree's hash never
 * changes once stored, so any instance may keep it; the upper levels, which every proof
 * needs, stay (bench/NOTES.md, "bench:log").
 */
const NODE_CACHE_SIZE = 100_000;

/** What the log key's state is, for `/v1/healthz` and the start-up log. */
export interface LogKeyStatus {
  key: string;
  /** Set when this instance's key is not the one the log was first signed by. */
  problem?: string;
}

/** The transparency log's reads: signed heads, proofs and entries. */
export class LogService {
  #head: SignedTreeHead | undefined;
  #keyStatus: LogKeyStatus;
  /** A size the tree has reached: it never shrinks, so a proof up to it needs no read. */
  #knownSize = 0;
  /** Stored nodes read before, least recently used first (a Map keeps insertion order). */
  readonly #nodes = new Map<string, Uint8Array>();

  constructor(
    private readonly deps: {
      db: Kysely<Database>;
      logKey: LogKey;
      now: () => number;
    },
  ) {
    this.#keyStatus = { key: deps.logKey.key };
  }

  get keyStatus(): LogKeyStatus {
    return this.#keyStatus;
  }

  /**
   * Compares this instance's log key with the one the log records (recording it when
   * none is): a lost or replaced key file is an error in the log and in `/v1/healthz`.
   */
  async checkKey(logger: Logger, created: boolean): Promise<LogKeyStatus> {
    const recorded = await recordLogKey(this.deps.db, this.deps.logKey.key);
    if (recorded !== this.deps.logKey.key) {
      const problem =
        `log key changed: the log was signed by ${recorded}, this instance signs with ` +
        `${this.deps.logKey.key}${created ? ' (the key file was missing and a new one was created)' : ''}; ` +
        'clients that kept a head will refuse the new heads. Restore the old key file, or ' +
        'see docs/transparency.md to accept the new key.';
      logger.error({ recorded, current: this.deps.logKey.key }, problem);
      this.#keyStatus = { key: this.deps.logKey.key, problem };
    } else {
      this.#keyStatus = { key: this.deps.logKey.key };
    }
    return this.#keyStatus;
  }

  /** The current signed tree head. */
  async head(): Promise<SignedTreeHead> {
    const state = await readTreeState(this.deps.db);
    this.#knownSize = Math.max(this.#knownSize, state.size);
    const root = toHex(state.root);
    const now = this.deps.now();
    const cached = this.#head;
    if (
      cached &&
      cached.size === state.size &&
      cached.root === root &&
      now - cached.timestamp < HEAD_REUSE_MS &&
      now >= cached.timestamp
    ) {
      return cached;
    }
    const message = treeHeadMessage(state.size, root, now);
    const sig = toHex(nacl.sign.detached(utf8(message), this.deps.logKey.secretKey));
    this.#head = { size: state.size, root, timestamp: now, key: this.deps.logKey.key, sig };
    return this.#head;
  }

  /** Throws `beyondHead(name)` unless the tree has reached `size`. */
  async #reached(size: number, name: string): Promise<void> {
    if (size <= this.#knownSize) return;
    this.#knownSize = Math.max(this.#knownSize, (await readTreeState(this.deps.db)).size);
    if (size > this.#knownSize) throw relayErrors.beyondHead(name);
  }

  async #hashes(ranges: readonly Range[]): Promise<string[]> {
    const nodes = new Map<string, Uint8Array>();
    const missing = [];
    for (const ref of ranges.flatMap(rangeNodes)) {
      const key = nodeKey(ref.level, ref.idx);
      const hash = this.#nodes.get(key);
      if (!hash) {
        missing.push(ref);
        continue;
      }
      nodes.set(key, hash);
      // Used again: to the young end, so the nodes every proof needs are never dropped.
      this.#nodes.delete(key);
      this.#nodes.set(key, hash);
    }
    if (missing.length > 0) {
      const read = await readNodes(this.deps.db, missing);
      for (const [key, hash] of read) nodes.set(key, hash);
      this.#keep(read);
    }
    return ranges.map((r) => toHex(rangeHash(r, nodes)));
  }

  /** Keeps stored nodes just read, the least recently used dropped beyond the cache's size. */
  #keep(read: ReadonlyMap<string, Uint8Array>): void {
    for (const [key, hash] of read) this.#nodes.set(key, hash);
    for (const key of this.#nodes.keys()) {
      if (this.#nodes.size <= NODE_CACHE_SIZE) break;
      this.#nodes.delete(key);
    }
  }

  /** `GET /v1/log/inclusion`: the audit path of a leaf in the tree of `size`. */
  async inclusion(
    leafHex: string,
    size: number,
  ): Promise<{ index: number; size: number; path: string[] }> {
    if (size < 1) throw relayErrors.badRequest('size must be at least 1');
    await this.#reached(size, 'size');
    const found = await findLeafWithSiblings(this.deps.db, fromHex(leafHex), size);
    if (!found) throw relayErrors.leafNotFound();
    this.#keep(found.nodes);
    const { index } = found;
    return { index, size, path: await this.#hashes(inclusionRanges(index, 0, size)) };
  }

  /** `GET /v1/log/consistency`: the proof that the tree of `from` is a prefix of that of `to`. */
  async consistency(from: number, to: number): Promise<{ path: string[] }> {
    await this.#reached(to, 'to');
    if (from < 1 || from > to) throw relayErrors.badRequest('from must be between 1 and to');
    if (from === to) return { path: [] };
    return { path: await this.#hashes(consistencyRanges(from, 0, to)) };
  }

  /**
   * `GET /v1/log/entries`: lines [start, end). A range wider than `MAX_ENTRIES` is refused
   * (400), not cut short: an answer shorter than asked would read as the log's end.
   */
  async entries(start: number, end: number): Promise<{ entries: string[] }> {
    if (start > end) throw relayErrors.badRequest('start must not be after end');
    if (end - start > MAX_ENTRIES) throw relayErrors.entriesRangeTooWide(MAX_ENTRIES);
    await this.#reached(end, 'end');
    return { entries: await readEntries(this.deps.db, start, end) };
  }
}
