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

/** Primary key constraint: the handle is taken. Named so a violation maps to its 409. */
export const HANDLE_PKEY = 'handle_pkey';
/** Unique constraint on the primary: it already owns a handle. */
export const HANDLE_PRIMARY_UNIQUE = 'handle_primary_key_unique';
