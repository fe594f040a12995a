import { randomUUID } from 'node:crypto';
import type { InstancePresence } from '@svc/database';
import type { Kysely } from 'kysely';
import type { Logger } from 'pino';
import type { Database } from '../db/database.js';
import { assetErrors } from '../errors.js';
import type { JobGaugeSample } from '../metrics/asset-metrics.js';
import { JobProgress } from './job-progress.js';
import { runJobWork, type JobRequest, type JobWorkers } from './job-work.js';
import { jobFromRow, type Job, type JobKind, type JobStatus } from './job.model.js';
import {
  countIndexedAssets,
  failRunningJobsOf,
  finishJob,
  findJob,
  insertJob,
  listRecentJobs,
  listRunningJobOwners,
  saveJobProgress,
} from './job.repository.js';

/** What the job service needs: what its jobs do, and where they are recorded. */
export interface JobDeps extends JobWorkers {
  db: Kysely<Database>;
  logger: Pick<Logger, 'info' | 'warn' | 'error'>;
  /**
   * This instance's id, recorded on each job it runs; `main.ts` holds its presence for the
   * process's life (`holdInstancePresence`), so other instances know when its jobs are orphaned.
   */
  instanceId: string;
  /** How often a running job's progress is logged and saved; 10 s unless a test says. */
  checkpointMs?: number;
}

/** Why a job that was running when its process ended shows as failed. */
export const RESTARTED = 'interrupted: the service restarted';
const STOPPED = 'interrupted: the service stopped';
/** How many jobs `GET /admin/jobs` lists. */
const RECENT = 50;

/** One job this process runs. */
interface RunningJob {
  id: string;
  kind: JobKind;
  startedAt: number;
  progress: JobProgress;
  controller: AbortController;
  /** Set once the job has ended, before its row is saved. */
  outcome?: { status: JobStatus; finishedAt: number; result: unknown; error: string | null };
  /** Set when the service stops it: it then failed, it was not cancelled. */
  stopReason?: string;
  settled: Promise<void>;
}

export type { JobRequest } from './job-work.js';

/**
 * Background jobs with live progress (what each kind does: `job-work.ts`): one of a kind at a time,
 * cancellable, recorded in `job` (checkpointed every 10 s, with a log line) so the record
 * outlives the process, while the job itself does not.
 */
export class JobService {
  readonly #running = new Map<string, RunningJob>();
  readonly #checkpointMs: number;
  #stopped = false;

  constructor(private readonly deps: JobDeps) {
    this.#checkpointMs = deps.checkpointMs ?? 10_000;
  }

  /**
   * At start: jobs left `running` by instances that are gone are failed, with the reason.
   * Those of instances still alive on the same database (they hold their presence) keep
   * running. An owner that only lost its connection takes its presence back once it
   * reconnects, but a job failed here stays failed: its outcome is saved only over `running`.
   */
  static async failInterrupted(db: Kysely<Database>, presence: InstancePresence): Promise<number> {
    const gone: (string | null)[] = [];
    for (const owner of await listRunningJobOwners(db)) {
      if (owner === null || (await presence.isGone(owner))) gone.push(owner);
    }
    return failRunningJobsOf(db, gone, RESTARTED, new Date());
  }

  /** Starts a job in the background; 409 while one of its kind runs, 503 once stopping. */
  async start(request: JobRequest): Promise<Job> {
    if (this.#stopped) throw assetErrors.stopping();
    // A job that has ended but is still saving its outcome no longer counts.
    const busy = [...this.#running.values()].find(
      (job) => job.kind === request.kind && !job.outcome,
    );
    if (busy) throw assetErrors.jobAlreadyRunning(request.kind, busy.id);
    const job: RunningJob = {
      id: randomUUID(),
      kind: request.kind,
      startedAt: Date.now(),
      progress: new JobProgress(request.kind === 'verify'),
      controller: new AbortController(),
      settled: Promise.resolve(),
    };
    // Claimed before the first await, so two requests at once cannot both start one.
    this.#running.set(job.id, job);
    try {
      // A verify's totals are the index's kept counts: known in the first answer already.
      if (request.kind === 'verify') {
        const { files, bytes } = await countIndexedAssets(this.deps.db);
        job.progress.total = files;
        job.progress.bytesTotal = bytes;
      }
      await insertJob(this.deps.db, {
        id: job.id,
        kind: job.kind,
        mode: request.kind === 'rebuild' ? request.mode : null,
        status: 'running',
        started_at: new Date(job.startedAt),
        total: job.progress.total,
        bytes_total: job.progress.bytesTotal,
        instance_id: this.deps.instanceId,
      });
    } catch (err) {
      this.#running.delete(job.id);
      throw err;
    }
    job.settled = this.#run(job, request);
    return this.#view(job);
  }

  /** One job, live while it runs; 404 when unknown. */
  async get(id: string): Promise<Job> {
    const running = this.#running.get(id);
    if (running) return this.#view(running);
    const row = await findJob(this.deps.db, id);
    if (!row) throw assetErrors.jobNotFound();
    return jobFromRow(row);
  }

  /** The newest jobs first, running ones live. */
  async list(): Promise<Job[]> {
    const rows = await listRecentJobs(this.deps.db, RECENT);
    return rows.map((row) => {
      const running = this.#running.get(row.id);
      return running ? this.#view(running) : jobFromRow(row);
    });
  }

  /** Cancels a running job and answers it once it has stopped; an ended job as it is. */
  async cancel(id: string): Promise<Job> {
    const running = this.#running.get(id);
    if (!running) return this.get(id);
    running.controller.abort(new Error('the job was cancelled'));
    await running.settled;
    return this.#view(running);
  }

  /** At shutdown: running jobs stop at once and are recorded as failed, with the reason. */
  stop(): Promise<void> {
    this.#stopped = true;
    const jobs = [...this.#running.values()];
    for (const job of jobs) {
      job.stopReason ??= STOPPED;
      job.controller.abort(new Error(STOPPED));
    }
    return Promise.all(jobs.map((job) => job.settled)).then(() => undefined);
  }

  /** Progress of the jobs running now, for the `/metrics` gauges. */
  runningSamples(): JobGaugeSample[] {
    return [...this.#running.values()]
      .filter((job) => !job.outcome)
      .map((job) => ({
        kind: job.kind,
        total: job.progress.total,
        done: job.progress.done,
        bytes_total: job.progress.bytesTotal,
        bytes_done: job.progress.bytesDone,
      }));
  }

  async #run(job: RunningJob, request: JobRequest): Promise<void> {
    const timer = setInterval(() => void this.#checkpoint(job), this.#checkpointMs);
    timer.unref();
    const { signal } = job.controller;
    let status: JobStatus;
    let result: unknown = null;
    let error: string | null = null;
    try {
      result = await runJobWork(this.deps, request, {
        signal,
        progress: job.progress,
      });
      status = signal.aborted ? 'cancelled' : 'done';
    } catch (err) {
      status = signal.aborted ? 'cancelled' : 'failed';
      if (status === 'failed') {
        error = err instanceof Error ? err.message : String(err);
        this.deps.logger.error({ err, job: job.id }, 'job failed');
      }
    } finally {
      clearInterval(timer);
    }
    if (job.stopReason) {
      status = 'failed';
      error = job.stopReason;
    }
    const outcome = { status, finishedAt: Date.now(), result, error };
    const view = this.#view(job, outcome);
    this.deps.logger.info({ job: view }, `job ${status}`);
    await finishJob(this.deps.db, job.id, {
      status,
      finished_at: new Date(outcome.finishedAt),
      total: view.total,
      done: view.done,
      bytes_total: view.bytes_total,
      bytes_done: view.bytes_done,
      result: result === null ? null : JSON.stringify(result),
      error,
    }).catch((err: unknown) => this.deps.logger.error({ err, job: job.id }, 'could not save job'));
    // Only now: a job read from memory never says it ended before its row does.
    job.outcome = outcome;
    this.#running.delete(job.id);
  }

  /** Every `checkpointMs`: the progress goes to the log and to the job's row. */
  async #checkpoint(job: RunningJob): Promise<void> {
    if (job.outcome) return;
    const view = this.#view(job);
    const { total, done, bytes_total, bytes_done, rate, bytes_rate, eta_s } = view;
    this.deps.logger.info(
      {
        job: job.id,
        kind: job.kind,
        total,
        done,
        bytes_total,
        bytes_done,
        rate,
        bytes_rate,
        eta_s,
      },
      'job progress',
    );
    await saveJobProgress(this.deps.db, job.id, { total, done, bytes_total, bytes_done }).catch(
      (err: unknown) => this.deps.logger.warn({ err, job: job.id }, 'could not save job progress'),
    );
  }

  #view(job: RunningJob, outcome = job.outcome): Job {
    const progress = job.progress.view((outcome?.finishedAt ?? Date.now()) - job.startedAt);
    return {
      id: job.id,
      kind: job.kind,
      status: outcome?.status ?? 'running',
      started_at: job.startedAt,
      finished_at: outcome?.finishedAt ?? null,
      ...progress,
      eta_s: outcome ? null : progress.eta_s,
      result: outcome?.result ?? null,
      error: outcome?.error ?? null,
    };
  }
}
