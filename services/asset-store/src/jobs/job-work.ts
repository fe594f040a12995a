import type { Rebuilder, RebuildMode } from '../admin/rebuild.service.js';
import type { BackfillReport } from '../assets/media-backfill.js';
import type { BlobStore } from '../storage/blob-store.js';
import type { Verifier } from '../verifier/verifier.service.js';
import type { JobProgress } from './job-progress.js';

/** What `POST /admin/jobs` asks for. */
export type JobRequest =
  { kind: 'verify' } | { kind: 'rebuild'; mode: RebuildMode } | { kind: 'backfill' };

/** Probes the facts of assets indexed before they were kept (`media-backfill.ts`). */
export interface Backfiller {
  /** How many assets are left to probe. */
  count(): Promise<number>;
  backfill(options: {
    signal: AbortSignal;
    onProgress: (done: number) => void;
  }): Promise<BackfillReport>;
}

/** Who does the work of each kind of job. */
export interface JobWorkers {
  verifier: Pick<Verifier, 'scrub'>;
  rebuilder: Pick<Rebuilder, 'rebuild'>;
  /** Where the assets are (disk or bucket): a rebuild's total is their number. */
  blobs: Pick<BlobStore, 'list'>;
  backfiller: Backfiller;
}

/** A running job as its work sees it: the signal that cancels it, the progress it reports. */
export interface JobRun {
  signal: AbortSignal;
  progress: JobProgress;
}

/** Does the work a job asks for, reporting its progress; answers the job's result. */
export function runJobWork(
  workers: JobWorkers,
  request: JobRequest,
  run: JobRun,
): Promise<unknown> {
  if (request.kind === 'verify') return verify(workers, run);
  if (request.kind === 'backfill') return backfill(workers, run);
  return rebuild(workers, request.mode, run);
}

async function backfill({ backfiller }: JobWorkers, { signal, progress }: JobRun) {
  progress.total = await backfiller.count();
  return backfiller.backfill({ signal, onProgress: (done) => (progress.done = done) });
}

function verify({ verifier }: JobWorkers, { signal, progress }: JobRun) {
  return verifier.scrub({
    signal,
    onBytes: (hash, n) => progress.read(hash, n),
    onChecked: (row) => progress.finished(row.hash, row.size),
  });
}

async function rebuild({ blobs, rebuilder }: JobWorkers, mode: RebuildMode, run: JobRun) {
  const { signal, progress } = run;
  // Rebuild streams the blobs, so its total comes from a listing of names alone first:
  // `accept` sees each name before anything else is read, and refusing them all reads
  // nothing more. Once cancelled, the next name is accepted only to end the listing.
  let files = 0;
  const count = () => {
    if (signal.aborted) return true;
    files++;
    return false;
  };
  const listing = blobs.list({ accept: count })[Symbol.asyncIterator]();
  await listing.next();
  await listing.return?.();
  progress.total = files;
  return rebuilder.rebuild(mode, {
    signal,
    onProgress: (report) => (progress.done = report.indexed + report.errors),
  });
}
