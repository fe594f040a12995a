import { openDB, type DBSchema, type IDBPDatabase } from 'idb';
import type { Pin, TreeHead } from '../../src/client/index.js';

/** This browser's identity: the key (hex, as in the CLI's key file) and, once claimed, the handle. */
export interface Identity {
  secretKey: string;
  handle?: string;
  fqhn?: string;
  /**
   * A key a rotation was started with and the relay has not acknowledged yet: kept so a
   * rotation cut short (a reload, the relay away) goes on with the same key.
   */
  nextSecretKey?: string;
  /** Keys this handle had before, newest first: they still open messages sealed to them. */
  previousSecretKeys?: string[];
}

/** An identity whose key owns a handle: the app proper starts with one. */
export type ClaimedIdentity = Identity & { handle: string; fqhn: string };

/**
 * A peer's pinned key. `accepted`: the person accepted it by hand after a warning (it
 * could not be verified, or nothing explained the change); `rotatedFrom`: the key a
 * logged rotation moved it from, until the person has seen the note.
 */
export interface KeptPin extends Pin {
  accepted?: boolean;
  rotatedFrom?: string;
}

/** Pinned keys by `handle@server`. */
export type Pins = Record<string, KeptPin>;

/** Where a message written here stands: on its way, or refused/unreachable (with why). */
export type SendState = 'sending' | 'failed';

/**
 * One message of a conversation, kept in this browser: received ones as they opened (or
 * why not), sent ones as written, and copies of those sent from another device (the
 * sender's own inbox holds an encrypted copy of each).
 */
export interface StoredMessage {
  /**
   * `in:<seq>` received; `local:<id>` written here (`out:<seq>` before self-copies);
   * `self:<seq>` a copy from the own inbox of one sent elsewhere. A message to oneself is
   * both `in:` and written.
   */
  id: string;
  dir: 'in' | 'out';
  /** The relay's seq (the peer's inbox for one written here); 0 until stored. */
  seq: number;
  /** The other side: a handle, or the sender's `ed25519:` key when it owns none. */
  peer: string;
  text: string;
  sent_at: string;
  created_at: string;
  /** Set when a received envelope did not open: why. */
  error?: string;
  /** Written here and not (yet) stored by the relay; absent once stored. */
  state?: SendState;
  /** Why the last attempt failed. */
  sendError?: string;
  /** Order of writing here, for messages not stored yet. */
  queuedAt?: number;
  /** The seq of its copy in the own inbox, once known. */
  copySeq?: number;
}

/** Per conversation (its peer, lowercased), the last received seq seen. */
export type ReadMarks = Record<string, number>;

interface RelaySchema extends DBSchema {
  /**
   * `me`: the identity; `reads`: the read marks; `pins`: pinned peer keys; `head`: the last
   * tree head kept (one record each: no schema upgrade needed).
   */
  identity: {
    key: 'me' | 'reads' | 'pins' | 'head';
    value: Identity | ReadMarks | Pins | TreeHead;
  };
  messages: { key: string; value: StoredMessage };
}

/** The app's IndexedDB: one identity and its messages. */
export class LocalStore {
  private constructor(private readonly db: IDBPDatabase<RelaySchema>) {}

  static async open(): Promise<LocalStore> {
    const db = await openDB<RelaySchema>('handle-relay', 1, {
      upgrade(database) {
        database.createObjectStore('identity');
        database.createObjectStore('messages', { keyPath: 'id' });
      },
    });
    return new LocalStore(db);
  }

  identity(): Promise<Identity | undefined> {
    return this.db.get('identity', 'me') as Promise<Identity | undefined>;
  }

  /** The read marks; undefined when none were ever kept (a store from before them). */
  readMarks(): Promise<ReadMarks | undefined> {
    return this.db.get('identity', 'reads') as Promise<ReadMarks | undefined>;
  }

  async saveReadMarks(marks: ReadMarks): Promise<void> {
    await this.db.put('identity', marks, 'reads');
  }

  async saveIdentity(identity: Identity): Promise<void> {
    await this.db.put('identity', identity, 'me');
  }

  async pins(): Promise<Pins> {
    return ((await this.db.get('identity', 'pins')) as Pins | undefined) ?? {};
  }

  async savePins(pins: Pins): Promise<void> {
    await this.db.put('identity', pins, 'pins');
  }

  /** The last tree head whose consistency was checked (none before the first check). */
  head(): Promise<TreeHead | undefined> {
    return this.db.get('identity', 'head') as Promise<TreeHead | undefined>;
  }

  async saveHead(head: TreeHead): Promise<void> {
    await this.db.put('identity', head, 'head');
  }

  /** Forgets the key and every message: another key's messages must not show under it. */
  async forget(): Promise<void> {
    const tx = this.db.transaction(['identity', 'messages'], 'readwrite');
    await Promise.all([tx.objectStore('identity').clear(), tx.objectStore('messages').clear()]);
    await tx.done;
  }

  messages(): Promise<StoredMessage[]> {
    return this.db.getAll('messages');
  }

  async putMessages(messages: readonly StoredMessage[]): Promise<void> {
    const tx = this.db.transaction('messages', 'readwrite');
    await Promise.all([...messages.map((m) => tx.store.put(m)), tx.done]);
  }
}
