import { openDB, type DBSchema, type IDBPDatabase } from 'idb';

/** This browser's identity: the key (hex, as in the CLI's key file) and, once claimed, the handle. */
export interface Identity {
  secretKey: string;
  handle?: string;
  fqhn?: string;
}

/**
 * One message of a conversation, kept in this browser: received ones as they opened (or
 * why not), sent ones as written (the relay keeps only what the recipient can open).
 */
export interface StoredMessage {
  /** `in:<seq>` or `out:<seq>`: a message to oneself is both. */
  id: string;
  dir: 'in' | 'out';
  seq: number;
  /** The other side: a handle, or the sender's `ed25519:` key when it owns none. */
  peer: string;
  text: string;
  sent_at: string;
  created_at: string;
  /** Set when a received envelope did not open: why. */
  error?: string;
}

interface RelaySchema extends DBSchema {
  identity: { key: 'me'; value: Identity };
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
    return this.db.get('identity', 'me');
  }

  async saveIdentity(identity: Identity): Promise<void> {
    await this.db.put('identity', identity, 'me');
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
