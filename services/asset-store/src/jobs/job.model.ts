import type { ProgressView } from './job-progress.js';
import type { JobRow } from './job.table.js';

/** What a job does. */
export type JobKind = JobRow['kind'];
/** Where a job stands. */
export type JobStatus = JobRow['status'];

/** A job as `/admin/jobs` shows it; times are epoch milliseconds. */
export interface Job extends ProgressView {
  id: string;
  kind: JobKind;
  status: JobStatus;
  started_at: number;
  finished_at: number | null;
  /** The report of the synchronous endpoint (`/admin/verify`, `/admin/rebuild`) once ended. */
  result: unknown;
  /** Why a job failed. */
  error: string | null;
}

/**
 * A stored job as the API shows it: a finished job's rates are its averages over its run,
 * and it has no ETA. A running one's row holds only its last saved progress.
 */
export function jobFromRow(row: JobRow): Job {
  const started = row.started_at.getTime();
  const finished = row.finished_at?.getTime() ?? null;
  const seconds = finished === null ? 0 : (finished - started) / 1000;
  const perSecond = (n: number) => (seconds > 0 ? n / seconds : null);
  const rate = perSecond(row.done);
  const bytesRate = row.kind === 'verify' ? perSecond(row.bytes_done) : null;
  return {
    id: row.id,
    kind: row.kind,
    status: row.status,
    started_at: started,
    finished_at: finished,
    total: row.total,
    done: row.done,
    bytes_total: row.bytes_total,
    bytes_done: row.bytes_done,
    rate: rate === null ? null : Math.round(rate * 100) / 100,
    bytes_rate: bytesRate === null ? null : Math.round(bytesRate),
    eta_s: null,
    result: row.result ?? null,
    error: row.error,
  };
}
