import type { ColumnType, Insertable, Selectable, Updateable } from 'kysely';

/** `job`: one admin job (verify, rebuild, backfill) with its last saved progress and outcome. */
export interface JobTable {
  id: string;
  kind: 'verify' | 'rebuild' | 'backfill';
  /** A rebuild's requested mode; null for the others. */
  mode: string | null;
  status: 'running' | 'done' | 'failed' | 'cancelled';
  started_at: Date;
  finished_at: Date | null;
  total: number | null;
  done: ColumnType<number, number | undefined, number>;
  bytes_total: number | null;
  bytes_done: ColumnType<number, number | undefined, number>;
  result: ColumnType<unknown, string | null | undefined, string | null>;
  /** Why a job failed, in words. */
  error: string | null;
  /** The instance running it (its `InstancePresence` id); null on rows from before. */
  instance_id: string | null;
}

export type JobRow = Selectable<JobTable>;
export type NewJobRow = Insertable<JobTable>;
export type JobRowUpdate = Updateable<JobTable>;
