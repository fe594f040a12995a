import fs from 'node:fs';
import path from 'node:path';
import request from 'supertest';
import { ingestFile, listen, rowCount, type Ingested } from './asset-helpers.js';
import { jsonLines, runCli } from './cli-runner.js';
import { createTestApp, type TestApp } from './test-app.js';

const ADMIN = 'admin-secret';

interface JobLine {
  id: string | number;
  kind: string;
  status: string;
  total?: number | null;
  done?: number | null;
  result?: Record<string, unknown> | null;
}

describe('asset-store verify, rebuild and jobs', () => {
  let t: TestApp;
  let server: Awaited<ReturnType<typeof listen>>;
  let env: NodeJS.ProcessEnv;
  const stored: Ingested[] = [];

  beforeAll(async () => {
    t = await createTestApp('cli_jobs', { admin_token: ADMIN });
    server = await listen(t.app);
    env = { ASSET_STORE_URL: `http://127.0.0.1:${server.port}`, ASSET_STORE_TOKEN: ADMIN };
    for (const name of ['a.txt', 'b.txt', 'c.txt']) {
      stored.push(await ingestFile(t.app, `content of ${name}`, name));
    }
  });
  afterAll(async () => {
    await server.stop();
    await t.close();
  });

  /** The job as the API shows it now. */
  async function jobOf(id: string | number): Promise<JobLine> {
    const res = await request(t.app)
      .get(`/api/v1/can/0/admin/jobs/${id}`)
      .set('Authorization', `Bearer ${ADMIN}`)
      .expect(200);
    return (res.body as { data: JobLine }).data;
  }

  it('verify starts a verify job and follows it to its end: --json lines, the last one done with the result', async () => {
    const run = await runCli(['verify', '--json'], { env });
    expect(run.code).toBe(0);
    const lines = jsonLines<JobLine>(run.out);
    const last = lines.at(-1)!;
    expect(new Set(lines.map((l) => l.id)).size).toBe(1);
    expect(lines.every((l) => l.kind === 'verify')).toBe(true);
    expect(lines.slice(0, -1).every((l) => l.status === 'running')).toBe(true);
    expect(last).toMatchObject({
      kind: 'verify',
      status: 'done',
      result: { checked: 3, corrupted: 0, missing: 0 },
    });
    expect(await jobOf(last.id)).toEqual(last);
  });

  it('verify without --json prints the outcome on stderr and the result on stdout', async () => {
    // Alter one file behind the store's back: the scrub must find it.
    const row = await t.index.db
      .selectFrom('asset')
      .select('path')
      .where('hash', '=', stored[0]!.hash)
      .executeTakeFirstOrThrow();
    fs.writeFileSync(path.join(t.storageRoot, row.path), 'altered');
    const run = await runCli(['verify'], { env });
    expect(run.code).toBe(0);
    expect(run.err).toMatch(/^asset-store: verify job \S+ done\n$/);
    expect(JSON.parse(run.out)).toMatchObject({ checked: 3, corrupted: 1, missing: 0 });
    const flagged = await t.index.db
      .selectFrom('asset')
      .select('is_corrupted')
      .where('hash', '=', stored[0]!.hash)
      .executeTakeFirstOrThrow();
    expect(flagged.is_corrupted).toBe(true);
  });

  it('rebuild --hard runs a hard rebuild as a job; the index holds every asset after it', async () => {
    const run = await runCli(['rebuild', '--hard', '--json'], { env });
    expect(run.code).toBe(0);
    const last = jsonLines<JobLine>(run.out).at(-1)!;
    expect(last).toMatchObject({
      kind: 'rebuild',
      status: 'done',
      result: { mode: 'hard', scanned: 3, indexed: 3 },
    });
    expect(await rowCount(t)).toBe(3);
  });

  it('jobs lists the recent jobs, and jobs <id> shows one', async () => {
    const listed = await runCli(['jobs', '--json'], { env });
    expect(listed.code).toBe(0);
    const jobs = jsonLines<JobLine>(listed.out);
    expect(jobs.map((j) => j.kind).sort()).toEqual(['rebuild', 'verify', 'verify']);
    const one = await runCli(['jobs', String(jobs[0]!.id), '--json'], { env });
    expect(one.code).toBe(0);
    expect(jsonLines(one.out)).toEqual([await jobOf(jobs[0]!.id)]);
  });

  it('needs the admin token: without it the store answers 401 and the CLI exits 1', async () => {
    const run = await runCli(['verify'], { env: { ASSET_STORE_URL: env.ASSET_STORE_URL } });
    expect(run).toEqual({
      code: 1,
      out: '',
      err: `asset-store: ${env.ASSET_STORE_URL} answered 401: missing or invalid admin token\n`,
    });
    const cancel = await runCli(['jobs', '--cancel'], { env });
    expect(cancel.code).toBe(2);
    expect(cancel.err).toBe('asset-store: --follow and --cancel need a job id\n');
  });
});
