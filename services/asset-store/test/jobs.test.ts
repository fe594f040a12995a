import request from 'supertest';
import {
  emptyBeforeEach,
  getJob,
  JOB_TOKEN,
  jobAuth,
  JOBS,
  startJob,
  storedStatus,
  untilEnded,
} from './job-helpers.js';
import { testDatabaseMode } from '@svc/testing';
import { waitUntil } from '@svc/testing/service-process';
import { sql } from 'kysely';
import type { Verifier } from '../src/verifier/verifier.service.js';
import { replaceContentBehindItsBack } from './asset-helpers.js';
import { storeAsset } from './factories.js';
import { useTestApp, variantApp } from './test-app.js';

const t = useTestApp('jobs', { admin_token: JOB_TOKEN });
emptyBeforeEach(t);
/**
 * An app with a job service of its own over the test's index and files, for tests that stop
 * it or wrap its verifier (`wrap`: the real one in, the one the jobs use out).
 */
function appWithOwnJobs(wrap: (real: Verifier) => Verifier = (real) => real) {
  const { app, runtime } = variantApp(t, { wrapJobVerifier: wrap });
  return { app, jobs: runtime.services.jobs };
}

describe('admin jobs', () => {
  it('need the admin token', async () => {
    const res = await request(t.app).post(JOBS).send({ kind: 'verify' }).expect(401);
    expect(res.body).toEqual({ status: 'error', error: 'missing or invalid admin token' });
    await request(t.app).get(JOBS).expect(401);
    await request(t.app)
      .get(`${JOBS}/${'0'.repeat(8)}-0000-0000-0000-${'0'.repeat(12)}`)
      .expect(401);
  });

  it.each([
    [{}, 'invalid kind: expected "verify", "rebuild" or "backfill"'],
    [{ kind: 'scrub' }, 'invalid kind: expected "verify", "rebuild" or "backfill"'],
    [{ kind: 'rebuild', mode: 'medium' }, 'invalid mode: expected "soft" or "hard"'],
    [{ kind: 'verify', extra: 1 }, 'invalid body: unknown field "extra"'],
    [[], 'invalid body: expected a JSON object'],
  ])('refuse the body %j with a 400 naming the field', async (body, error) => {
    const res = await request(t.app).post(JOBS).set(jobAuth).send(body).expect(400);
    expect(res.body).toEqual({ status: 'error', error });
    expect(await t.index.db.selectFrom('job').select('id').execute()).toEqual([]);
  });

  it('answer 400 for a malformed id and 404 for an unknown one', async () => {
    const bad = await request(t.app).get(`${JOBS}/nope`).set(jobAuth).expect(400);
    expect(bad.body).toEqual({ status: 'error', error: 'invalid id: expected a job id (UUID)' });
    const unknown = await request(t.app)
      .delete(`${JOBS}/00000000-0000-4000-8000-000000000000`)
      .set(jobAuth)
      .expect(404);
    expect(unknown.body).toEqual({ status: 'error', error: 'job not found' });
    // An empty id is not the list of jobs (the router is strict about the trailing slash).
    const empty = await request(t.app).get(`${JOBS}/`).set(jobAuth).expect(404);
    expect(empty.body).toEqual({ status: 'error', error: 'no such route' });
  });

  it('run a verify in the background and end with the scrub report and full counts', async () => {
    const good = await storeAsset(t, 'intact content');
    const bad = await storeAsset(t, 'will be damaged');
    await replaceContentBehindItsBack(t, bad.row.path, 'damaged');
    const started = await startJob(t.app, { kind: 'verify' });
    expect(started).toMatchObject({ kind: 'verify', status: 'running', finished_at: null });

    const job = await untilEnded(t.app, started.id);
    const bytes = good.row.size + bad.row.size;
    expect(job).toEqual({
      id: started.id,
      kind: 'verify',
      status: 'done',
      started_at: started.started_at,
      finished_at: expect.any(Number) as number,
      total: 2,
      done: 2,
      bytes_total: bytes,
      bytes_done: expect.any(Number) as number,
      rate: expect.any(Number) as number,
      bytes_rate: expect.any(Number) as number,
      eta_s: null,
      result: { checked: 2, corrupted: 1, missing: 0, duration_ms: expect.any(Number) as number },
      error: null,
    });
    // The damaged file is shorter than its row says: what was read is counted, up to the total.
    expect(job.bytes_done).toBeLessThanOrEqual(bytes);
    expect(job.finished_at!).toBeGreaterThanOrEqual(job.started_at);
    expect(await storedStatus(t, job.id)).toEqual({
      status: 'done',
      error: null,
      done: 2,
      total: 2,
    });
    const flagged = await t.index.db
      .selectFrom('asset')
      .select('is_corrupted')
      .where('hash', '=', bad.row.hash)
      .executeTakeFirstOrThrow();
    expect(flagged.is_corrupted).toBe(true);

    const list = await request(t.app).get(JOBS).set(jobAuth).expect(200);
    expect(list.body).toEqual({ status: 'success', data: [job] });
    // Once it shows as ended, another of its kind may start at once.
    const again = await startJob(t.app, { kind: 'verify' });
    expect((await untilEnded(t.app, again.id)).status).toBe('done');
  });

  it('run a rebuild from the files and end with the rebuild report', async () => {
    const assets = [
      await storeAsset(t, 'one'),
      await storeAsset(t, 'two'),
      await storeAsset(t, 'three'),
    ];
    await t.index.db.deleteFrom('asset').execute();
    const started = await startJob(t.app, { kind: 'rebuild' });
    const job = await untilEnded(t.app, started.id);
    expect(job).toMatchObject({
      kind: 'rebuild',
      status: 'done',
      total: 3,
      done: 3,
      bytes_total: null,
      bytes_done: 0,
      bytes_rate: null,
      eta_s: null,
      result: { mode: 'soft', scanned: 3, indexed: 3, errors: 0 },
      error: null,
    });
    const rows = await t.index.db.selectFrom('asset').select('hash').orderBy('timestamp').execute();
    expect(rows.map((r) => r.hash)).toEqual(assets.map((a) => a.row.hash));

    const hard = await untilEnded(
      t.app,
      (await startJob(t.app, { kind: 'rebuild', mode: 'hard' })).id,
    );
    expect(hard.result).toEqual({ mode: 'hard', scanned: 3, indexed: 3, errors: 0 });
  });

  it('refuse a new job with 503 once the service is stopping', async () => {
    const { app, jobs } = appWithOwnJobs();
    await jobs.stop();
    const res = await request(app).post(JOBS).set(jobAuth).send({ kind: 'verify' }).expect(503);
    expect(res.body).toEqual({ status: 'error', error: 'the service is stopping' });
    expect(await t.index.db.selectFrom('job').select('id').execute()).toEqual([]);
  });

  // Skipped on PGlite: a row lock held here needs a second connection, and PGlite has one.
  (testDatabaseMode() === 'postgres' ? it : it.skip)(
    'say a job ended only once its row says so',
    async () => {
      await storeAsset(t, 'checked while the row is held');
      const { db } = t.index;
      let open!: () => void;
      const gate = new Promise<void>((resolve) => (open = resolve));
      // The real scrub, held back until the test holds the job's row.
      const { app, jobs } = appWithOwnJobs(
        (real) =>
          ({
            scrub: async (options: Parameters<Verifier['scrub']>[0]) => {
              await gate;
              return real.scrub(options);
            },
          }) as unknown as Verifier,
      );
      const started = await startJob(app, { kind: 'verify' });
      await db.transaction().execute(async (trx) => {
        await sql`select id from job where id = ${started.id} for update`.execute(trx);
        open();
        // The job's end waits on the row: until it is written, the job is still running.
        await waitUntil(async () => {
          const { rows } = await sql<{ n: number }>`
            select count(*)::int as n from pg_stat_activity
            where datname = current_database() and wait_event_type = 'Lock' and query ilike 'update "job"%'`.execute(
            db,
          );
          return rows[0]!.n > 0;
        }, 10_000);
        expect(await getJob(app, started.id)).toMatchObject({
          status: 'running',
          finished_at: null,
        });
      });
      const job = await untilEnded(app, started.id);
      expect(job).toMatchObject({ status: 'done', done: 1, total: 1 });
      expect(await storedStatus(t, started.id)).toEqual({
        status: 'done',
        error: null,
        done: 1,
        total: 1,
      });
      await jobs.stop();
    },
  );
});
