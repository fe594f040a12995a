import type { Insertable, Selectable } from 'kysely';

/** One claimed handle; `primary_key` is unique so a primary owns at most one handle. */
export interface HandleTable {
  handle: string;
  primary_key: string;
  registered_at: Date;
  proofs: string[];
}

export type HandleRow = Selectable<HandleTable>;
export type NewHandleRow = Insertable<HandleTable>;
