import type { Generated, Insertable, Selectable } from 'kysely';

/** One relayed message; `envelope` is the JSON text exactly as measured on arrival. */
export interface MessageTable {
  seq: Generated<number>;
  recipient: string;
  envelope: string;
  created_at: Date;
}

/** A message row as read. */
export type MessageRow = Selectable<MessageTable>;
/** A message row as inserted. */
export type NewMessageRow = Insertable<MessageTable>;
