import type { Generated, Insertable, Selectable } from 'kysely';

/** One relayed message; `envelope` is the JSON text exactly as measured on arrival. */
export interface MessageTable {
  seq: Generated<number>;
  recipient: string;
  envelope: string;
  created_at: Date;
  /** `created_at` as clients get it, `Date#toISOString` form, written at insert. */
  created_text: string;
}

/** A message row as read. */
export type MessageRow = Selectable<MessageTable>;
/** A message row as inserted. */
export type NewMessageRow = Insertable<MessageTable>;
