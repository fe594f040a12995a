import { testDatabaseMode } from '@svc/testing';
import request from 'supertest';
import { RESTARTED } from '../src/jobs/job.service.js';
import {
  GIB,
  JOBS,
  JOB_TOKEN,
  jobAuth,
  getJob,
  placeSparseAssets,
  startJob,
  storedStatus,
  untilEnded,
} from './job-helpers.js';
import { createTestApp, type TestApp } from './test-app.js';

const TIMEOUT_MS = 60_000;

// Skipped on the embedded database: one process owns its folder, so there is never a second
// live instance to spare (job-restart.test.ts covers a restart there).
const onServer = testDatabaseMode() === 'postgres' ? describe : describe.skip;

onServer('jobs of several instances on one PostgreSQL database', () => {
  let a: TestApp;
  let b: TestApp | undefined;
  let c: TestApp | undefined;
  beforeAll(async () => {
    a = await createTestApp('job_owners', { admin_token: JOB_TOKEN });
  }, TIMEOUT_MS);
  afterAll(async () => {
    await c?.close();
    await b?.close();
    await a?.close();
  }, TIMEOUT_MS);

  /** Another instance on A's database and storage, as `main.ts` starts one. */
  async function startInstance(label: string): Promise<{ t: TestApp; failed: number }> {
    const t = await createTestApp(
      label,
      { admin_token: JOB_TOKEN, storage_root: a.storageRoot },
      { sharedTarget: a.index.target },
    );
    // What its start-up found: the jobs of gone instances it failed.
    return { t, failed: t.runtime.startup.interrupted };
  }

  it(
    "a starting instance leaves a live instance's running job alone, and fails it once that instance is gone",
    async () => {
      // Sparse 16 GiB files: the scrub is still reading them long after the test is done.
      await placeSparseAssets(a, 2, 16 * GIB);
      const job = await startJob(a.app, { kind: 'verify' });
      expect(job.status).toBe('running');

      const started = await startInstance('job_owners_b');
      b = started.t;
      expect(started.failed).toBe(0);
      // B reads the row A saved: running, with no error, as A still answers it live.
      expect(await getJob(b.app, job.id)).toMatchObject({ status: 'running', error: null });
      expect(await getJob(a.app, job.id)).toMatchObject({ status: 'running', error: null });
      expect(await storedStatus(a, job.id)).toEqual({
        status: 'running',
        error: null,
        done: 0,
        total: 2,
      });

      // A dies: its presence's connection closes (its process would have taken it along).
      await a.presence.close();
      const next = await startInstance('job_owners_c');
      c = next.t;
      expect(next.failed).toBe(1);
      const failed = await getJob(b.app, job.id);
      expect(failed).toMatchObject({ status: 'failed', error: RESTARTED });
      expect(failed.finished_at).toEqual(expect.any(Number));
      expect(await storedStatus(a, job.id)).toEqual({
        status: 'failed',
        error: RESTARTED,
        done: 0,
        total: 2,
      });

      // The job's own process, had it lived on cut off, cannot bring it back when it ends.
      await request(a.app).delete(`${JOBS}/${job.id}`).set(jobAuth).expect(200);
      await untilEnded(a.app, job.id);
      expect(await storedStatus(a, job.id)).toMatchObject({ status: 'failed', error: RESTARTED });
    },
    TIMEOUT_MS,
  );
});
