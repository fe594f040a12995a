import { spawn } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';

const GLOBAL_SETUP = path.resolve(import.meta.dirname, '..', 'jest', 'global-setup.js');

/**
 * A Docker engine with no registry behind it, on a socket of its own: it answers what
 * testcontainers asks first, holds the images named, and records every request; a pull, or
 * anything else, fails as such an engine's would.
 */
async function fakeEngine(held: string[]) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'fake-docker-'));
  const socket = path.join(dir, 'docker.sock');
  const heard: string[] = [];
  const server = http.createServer((req, res) => {
    const url = (req.url ?? '').replace(/^\/v[0-9.]+/, '');
    heard.push(`${req.method} ${url.split('?')[0]}`);
    res.setHeader('Content-Type', 'application/json');
    const answer = (status: number, body: unknown) => {
      res.statusCode = status;
      res.end(JSON.stringify(body));
    };
    if (url.startsWith('/info')) return answer(200, { OperatingSystem: 'Debian', Labels: [] });
    if (url.startsWith('/networks/bridge')) {
      return answer(200, { Name: 'bridge', IPAM: { Config: [{ Gateway: '172.17.0.1' }] } });
    }
    const image = /^\/images\/(.+)\/json$/.exec(url)?.[1];
    if (image !== undefined) {
      return held.includes(image) ? answer(200, { Id: 'sha256:0' }) : answer(404, {});
    }
    answer(500, { message: 'lookup registry-1.docker.io: no such host' });
  });
  await new Promise<void>((resolve) => server.listen(socket, resolve));
  return {
    host: `unix://${socket}`,
    heard,
    close: async () => {
      await new Promise((resolve) => server.close(resolve));
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** Runs the Jest global setup in a process of its own; what it printed and chose. */
function globalSetup(env: NodeJS.ProcessEnv) {
  const inherited = Object.fromEntries(
    Object.entries(process.env).filter(
      ([name]) => !/^(TEST_|S3_|TESTCONTAINERS_|DOCKER_HOST$)/.test(name),
    ),
  );
  const script =
    `const { default: setup } = await import(${JSON.stringify(GLOBAL_SETUP)});` +
    `await setup(); const e = process.env;` +
    `console.log(JSON.stringify({ mode: e.TEST_DATABASE_MODE, s3: e.S3_ENDPOINT ?? null, skipped: e.TEST_S3_SKIPPED ?? null }));`;
  const child = spawn(process.execPath, ['--input-type=module', '-e', script], {
    env: { ...inherited, ...env },
  });
  let out = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => (out += chunk));
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (out += chunk));
  return new Promise<{ lines: string[]; chosen: unknown }>((resolve) => {
    child.on('exit', () => {
      const lines = out.split('\n').filter((line) => line.trim() !== '');
      resolve({ lines: lines.slice(0, -1), chosen: JSON.parse(lines.at(-1) ?? 'null') });
    });
  });
}

describe('the test harness on a machine with a Docker engine but no registry', () => {
  let engine: Awaited<ReturnType<typeof fakeEngine>> | undefined;
  afterEach(async () => {
    await engine?.close();
    engine = undefined;
  });

  it('never touches Docker for the parts the environment gives (TEST_DATABASE_URL, S3_ENDPOINT)', async () => {
    engine = await fakeEngine([]);
    const run = await globalSetup({
      DOCKER_HOST: engine.host,
      TEST_DATABASE_URL: 'postgres://postgres@127.0.0.1:1/postgres',
      S3_ENDPOINT: 'http://127.0.0.1:1',
    });
    expect(run).toEqual({
      lines: [],
      chosen: { mode: 'postgres', s3: 'http://127.0.0.1:1', skipped: null },
    });
    expect(engine.heard).toEqual([]);
  });

  it('pulls no image: it falls back at once, saying why in one line', async () => {
    // The engine holds PostgreSQL's image (a container it then cannot start) but not MinIO's
    // or testcontainers' reaper's.
    engine = await fakeEngine(['postgres:16-alpine']);
    const run = await globalSetup({ DOCKER_HOST: engine.host });
    expect(engine.heard.filter((request) => request.startsWith('POST /images/create'))).toEqual([]);
    expect(run.lines).toEqual([
      expect.stringMatching(
        /^tests use embedded PGlite \(no TEST_DATABASE_URL; no PostgreSQL from testcontainers: .+\)$/,
      ) as string,
    ]);
    expect(run.chosen).toEqual({
      mode: 'pglite',
      s3: null,
      skipped:
        'no S3_ENDPOINT, and no MinIO from testcontainers: minio/minio:RELEASE.2024-12-13T22-19-12Z ' +
        'is not on this Docker engine, and the tests pull no image unless TEST_PULL_IMAGES=1',
    });
  }, 60_000);
});
