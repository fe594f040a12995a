import type { Selectable } from 'kysely';

/** One link of a signature chain, numbered by its leaf index in the transparency log. */
export interface SigchainLinkTable {
  idx: number;
  /** Bare handle (the stored, folded form). */
  handle: string;
  seq: number;
  /** `ed25519:<hex>`: the handle's key from this link on. */
  key: string;
  /** The link's line: its JSON text as served and hashed. */
  line: string;
  /** RFC 9162 leaf hash of `line`. */
  leaf_hash: Uint8Array;
}

/** A complete subtree's hash: leaves [idx·2^level, (idx+1)·2^level). Level 0: the leaves. */
export interface LogNodeTable {
  level: number;
  idx: number;
  hash: Uint8Array;
}

/** The tree's size and root, one row (`id` 1), and the log key the log was first signed by. */
export interface LogStateTable {
  id: number;
  size: number;
  root: Uint8Array;
  log_key: string | null;
}

/** A link row as read. */
export type SigchainLinkRow = Selectable<SigchainLinkTable>;

/** Unique constraint: one link per seq of a handle (a second rotation from one line loses). */
export const SIGCHAIN_LINK_HANDLE_SEQ = 'sigchain_link_handle_seq';
