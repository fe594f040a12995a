import type { Kysely } from 'kysely';
import type { Logger } from 'pino';
import nacl from 'tweetnacl';
import { fromHex, toHex, utf8 } from '../client/hex.js';
import { treeHeadMessage } from '../client/merkle.js';
import type { Database } from '../db/database.js';
import { relayErrors } from '../errors.js';
import type { LogKey } from './log-key.js';
import { findLeaf, readEntries, readNodes, readTreeState, recordLogKey } from './log.repository.js';
import {
  consistencyRanges,
  inclusionRanges,
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

/** Entries served per `GET /v1/log/entries` at most. */
export const MAX_ENTRIES = 1000;

/** A head is signed again at most this often while the tree does not grow. */
const HEAD_REUSE_MS = 1000;

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

  async #treeSize(): Promise<number> {
    return (await readTreeState(this.deps.db)).size;
  }

  async #hashes(ranges: readonly Range[]): Promise<string[]> {
    const nodes = await readNodes(this.deps.db, ranges.flatMap(rangeNodes));
    return ranges.map((r) => toHex(rangeHash(r, nodes)));
  }

  /** `GET /v1/log/inclusion`: the audit path of a leaf in the tree of `size`. */
  async inclusion(
    leafHex: string,
    size: number,
  ): Promise<{ index: number; size: number; path: string[] }> {
    if (size > (await this.#treeSize())) throw relayErrors.beyondHead('size');
    if (size < 1) throw relayErrors.badRequest('size must be at least 1');
    const index = await findLeaf(this.deps.db, fromHex(leafHex), size);
    if (index === undefined) throw relayErrors.leafNotFound();
    return { index, size, path: await this.#hashes(inclusionRanges(index, 0, size)) };
  }

  /** `GET /v1/log/consistency`: the proof that the tree of `from` is a prefix of that of `to`. */
  async consistency(from: number, to: number): Promise<{ path: string[] }> {
    if (to > (await this.#treeSize())) throw relayErrors.beyondHead('to');
    if (from < 1 || from > to) throw relayErrors.badRequest('from must be between 1 and to');
    if (from === to) return { path: [] };
    return { path: await this.#hashes(consistencyRanges(from, 0, to)) };
  }

  /** `GET /v1/log/entries`: lines [start, end), at most `MAX_ENTRIES`. */
  async entries(start: number, end: number): Promise<{ entries: string[] }> {
    if (end > (await this.#treeSize())) throw relayErrors.beyondHead('end');
    if (start > end) throw relayErrors.badRequest('start must not be after end');
    return { entries: await readEntries(this.deps.db, start, Math.min(end, start + MAX_ENTRIES)) };
  }
}
