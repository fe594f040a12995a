import type { Insertable, Selectable } from 'kysely';

/** One claimed handle; `primary_key` is unique so a primary owns at most one handle. */
export interface HandleTable {
  handle: string;
  primary_key: string;
  registered_at: Date;
  proofs: string[];
}

/** A handle row as read. */
export type HandleRow = Selectable<HandleTable>;
/** A handle row as inserted. */
export type NewHandleRow = Insertable<HandleTable>;

/** Constraint names, so a unique violation maps to the right 409 message. */
export const HANDLE_PKEY = 'handle_pkey';
export const HANDLE_PRIMARY_UNIQUE = 'handle_primary_key_unique';
