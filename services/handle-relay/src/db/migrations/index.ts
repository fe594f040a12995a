import type { Migration } from 'kysely';
import * as createHandle from './20261121060000_create_handle.js';

/** Every migration, by sortable name; the list is explicit so bundles and tests load the same set. */
export const migrations: Record<string, Migration> = {
  '20261121060000_create_handle': createHandle,
};
