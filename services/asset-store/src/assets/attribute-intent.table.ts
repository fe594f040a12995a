import type { Generated } from 'kysely';

/** `attribute_intent`: an attribute write under way for an asset (see its migration). */
export interface AttributeIntentTable {
  id: Generated<number>;
  hash: string;
}
