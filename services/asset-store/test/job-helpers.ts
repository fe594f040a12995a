import fs from 'node:fs';
import path from 'node:path';
import request from 'supertest';
import type { App } from '../src/app.js';
import { removeAllAssetsBehindItsBack } from './asset-helpers.js';
import { freshTimestamp, insertAssetRow } from './factories.js';
import type { TestApp } from './test-app.js';

export const JOB_TOKEN = 'job-token';
export const JOBS = '/api/v1/can/0/admin/jobs';
export const jobAuth = { Authorization: `Bearer ${JOB_TOKEN}` };
export const GIB = 2 ** 30;

/** A job as the API answers it. */
export interface JobBody {
  id: string;
  kind: string;
  status: string;
  started_at: number;
  finished_at: number | null;
  total: number | null;
  done: number;
  bytes_total: number | null;
  bytes_done: number;
  rate: number | null;
  bytes_rate: number | null;
  eta_s: number | null;
  result: unknown;
  error: string | null;
}

/** Each test of a job file starts with no asset, no job and an empty storage (root or bucket). */
export function emptyBeforeEach(t: TestApp): void {
  beforeEach(async () => {
    await t.index.db.deleteFrom('asset').execute();
    await t.index.db.deleteFrom('job').execute();
    await removeAllAssetsBehindItsBack(t);
  });
}

/** `GET /admin/jobs/{id}`, 200. */
export async function getJob(app: App, id: string): Promise<JobBody> {
  const res = await request(app).get(`${JOBS}/${id}`).set(jobAuth).expect(200);
  return (res.body as { data: JobBody }).data;
}

/** `POST /admin/jobs`, 202. */
export async function startJob(app: App, body: object): Promise<JobBody> {
  const res = await request(app).post(JOBS).set(jobAuth).send(body).expect(202);
  return (res.body as { data: JobBody }).data;
}

/** Polls the job until it is no longer running. */
export async function untilEnded(app: App, id: string, timeoutMs = 30_000): Promise<JobBody> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const job = await getJob(app, id);
    if (job.status !== 'running') return job;
    if (Date.now() > deadline) throw new Error(`job ${id} still running`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** The job's row as saved. */
export async function storedStatus(t: TestApp, id: string): Promise<unknown> {
  return t.index.db
    .selectFrom('job')
    .select(['status', 'error', 'done', 'total'])
    .where('id', '=', id)
    .executeTakeFirst();
}

/**
 * Sparse files of `size` bytes (no disk space, yet each takes a while to hash) indexed as
 * already corrupted, so a scrub reads each once and changes nothing.
 */
export async function placeSparseAssets(t: TestApp, count: number, size: number): Promise<void> {
  for (let i = 0; i < count; i++) {
    const timestamp = freshTimestamp();
    const hash = i.toString(16).padStart(64, 'f');
    const name = `${timestamp}_${hash}.bin`;
    const file = path.join(t.storageRoot, name);
    fs.closeSync(fs.openSync(file, 'w'));
    fs.truncateSync(file, size);
    await insertAssetRow(t.index.db, {
      timestamp,
      hash,
      path: name,
      size,
      is_corrupted: true,
      content_sha256: '0'.repeat(64),
    });
  }
}
