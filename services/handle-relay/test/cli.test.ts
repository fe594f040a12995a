import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import {
  freePort,
  nodeArgsFor,
  spawnService,
  type ServiceProcess,
} from '@svc/testing/service-process';
import { createTestDatabase, type TestDatabase } from '@svc/testing';
import { runCli } from '../src/cli/cli.js';
import { readKeyFile } from '../src/client/key-file.js';
import { primaryOf } from '../src/client/keys.js';
import type { HandleRecord } from '../src/handles/handle-record.js';
import { uniqueHandle } from './handle-factories.js';

const SERVICE_DIR = path.resolve(import.meta.dirname, '..');
const CLI_ENTRY = path.join(SERVICE_DIR, 'src', 'cli', 'main.ts');
const START_TIMEOUT_MS = 90_000;

let dir: string;
let db: TestDatabase;
let service: ServiceProcess;
let url: string;

beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'handle-relay-cli-'));
  db = await createTestDatabase('relay_cli');
  const port = await freePort();
  url = `http://127.0.0.1:${port}`;
  service = spawnService(path.join(SERVICE_DIR, 'src', 'main.ts'), [], {
    HANDLE_RELAY_BIND: `127.0.0.1:${port}`,
    HANDLE_RELAY_SERVER: 'cli.test',
    HANDLE_RELAY_DB: db.target.kind === 'postgres' ? db.target.url : path.join(dir, 'db'),
    HANDLE_RELAY_VAPID_KEY_PATH: path.join(dir, 'vapid.json'),
    HANDLE_RELAY_RATE_LIMIT_PER_MINUTE: '0',
  });
  await service.waitForLog('listening');
}, START_TIMEOUT_MS);

afterAll(async () => {
  service.child.kill('SIGTERM');
  await service.exited;
  await db.drop();
  fs.rmSync(dir, { recursive: true, force: true });
});

/** Runs the real `handle-relay` bin (from source, or as built in CI) as a child process. */
function bin(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [...nodeArgsFor(CLI_ENTRY), ...args], {
      cwd: SERVICE_DIR,
      env: { ...process.env, HANDLE_RELAY_URL: url },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (c: string) => (stdout += c));
    child.stderr.setEncoding('utf8').on('data', (c: string) => (stderr += c));
    child.once('error', reject);
    child.once('exit', (code) => resolve({ code, stdout, stderr }));
  });
}

/** Runs the CLI in-process against the running service. */
async function cli(args: string[]) {
  let stdout = '';
  let stderr = '';
  const code = await runCli(args, {
    stdout: (t) => (stdout += t),
    stderr: (t) => (stderr += t),
    env: { HANDLE_RELAY_URL: url },
  });
  return { code, stdout, stderr };
}

describe('the handle-relay CLI against a running service', () => {
  it(
    'keygen writes a 0600 key file, register claims a handle, whois finds it, proofs set publishes',
    async () => {
      const keyFile = path.join(dir, 'alice.key.json');
      const handle = uniqueHandle('cli');

      const keygen = await bin(['keygen', '--key', keyFile]);
      expect(keygen).toMatchObject({ code: 0, stderr: '' });
      expect(fs.statSync(keyFile).mode & 0o777).toBe(0o600);
      const keys = await readKeyFile(keyFile);
      const primary = primaryOf(keys.publicKey);
      expect(keygen.stdout).toBe(`${primary}\nwrote ${keyFile}\n`);

      const register = await bin(['register', handle, '--key', keyFile]);
      expect(register).toMatchObject({ code: 0, stderr: '' });
      const record = JSON.parse(register.stdout) as HandleRecord;
      expect(record).toEqual({
        handle,
        fqhn: `${handle}@cli.test`,
        primary,
        sigchain_url: `http://localhost:8090/v1/sigchains/ed25519/${primary.slice(8)}`,
        registered_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/) as string,
        proofs: [],
      });

      const proofs = await bin([
        'proofs',
        'set',
        handle,
        'github:alice',
        'dns:alice.example',
        '--key',
        keyFile,
      ]);
      expect(proofs).toEqual({ code: 0, stdout: `proofs of ${handle} set (2)\n`, stderr: '' });

      const whois = await bin(['whois', handle]);
      expect(whois.code).toBe(0);
      expect(JSON.parse(whois.stdout)).toEqual({
        ...record,
        proofs: ['github:alice', 'dns:alice.example'],
      });
    },
    START_TIMEOUT_MS,
  );

  it('whois takes a primary too', async () => {
    const keyFile = path.join(dir, 'bob.key.json');
    const handle = uniqueHandle('cli');
    expect((await cli(['keygen', '--key', keyFile])).code).toBe(0);
    const registered = await cli(['register', handle, '--key', keyFile]);
    expect(registered.code).toBe(0);
    const { primary } = JSON.parse(registered.stdout) as HandleRecord;
    const whois = await cli(['whois', primary]);
    expect(whois.code).toBe(0);
    expect((JSON.parse(whois.stdout) as HandleRecord).handle).toBe(handle);
  });

  it('proofs set accepts the handle in any case', async () => {
    const keyFile = path.join(dir, 'frank.key.json');
    const handle = uniqueHandle('cli');
    await cli(['keygen', '--key', keyFile]);
    expect((await cli(['register', handle, '--key', keyFile])).code).toBe(0);
    const upper = handle.toUpperCase();
    expect(await cli(['proofs', 'set', upper, 'web:frank.example', '--key', keyFile])).toEqual({
      code: 0,
      stdout: `proofs of ${upper} set (1)\n`,
      stderr: '',
    });
    const whois = await cli(['whois', upper]);
    expect((JSON.parse(whois.stdout) as HandleRecord).proofs).toEqual(['web:frank.example']);
  });

  it('reports the relay error and exits 1 when the handle is taken', async () => {
    const first = path.join(dir, 'carol.key.json');
    const second = path.join(dir, 'mallory.key.json');
    const handle = uniqueHandle('cli');
    await cli(['keygen', '--key', first]);
    await cli(['keygen', '--key', second]);
    expect((await cli(['register', handle, '--key', first])).code).toBe(0);
    expect(await cli(['register', handle, '--key', second])).toEqual({
      code: 1,
      stdout: '',
      stderr: `handle-relay: 409 conflict: handle ${handle} is already claimed\n`,
    });
  });

  it('signs registrations for the --server given, which the relay refuses when it is not its own', async () => {
    const keyFile = path.join(dir, 'dave.key.json');
    await cli(['keygen', '--key', keyFile]);
    const res = await cli([
      'register',
      uniqueHandle('cli'),
      '--key',
      keyFile,
      '--server',
      'elsewhere.test',
    ]);
    expect(res).toEqual({
      code: 1,
      stdout: '',
      stderr:
        'handle-relay: 400 bad_request: registration server elsewhere.test does not match this server cli.test\n',
    });
  });

  it('keygen with a key present says so, keeps it and exits 0; --force replaces it', async () => {
    const keyFile = path.join(dir, 'erin.key.json');
    await cli(['keygen', '--key', keyFile]);
    const before = fs.readFileSync(keyFile, 'utf8');
    const primary = primaryOf((await readKeyFile(keyFile)).publicKey);
    expect(await cli(['keygen', '--key', keyFile])).toEqual({
      code: 0,
      stdout: `${primary}\n`,
      stderr: `handle-relay: ${keyFile} already holds a key; kept (keygen --force replaces it)\n`,
    });
    expect(fs.readFileSync(keyFile, 'utf8')).toBe(before);
    const forced = await cli(['keygen', '--force', '--key', keyFile]);
    expect(forced).toMatchObject({ code: 0, stderr: '' });
    expect(fs.readFileSync(keyFile, 'utf8')).not.toBe(before);
    expect(forced.stdout).toBe(
      `${primaryOf((await readKeyFile(keyFile)).publicKey)}\nwrote ${keyFile}\n`,
    );
  });

  it('the README’s keygen && register && send && inbox chain works twice in a row', async () => {
    const handle = uniqueHandle('chain');
    const env = { HANDLE_RELAY_URL: url, HANDLE_RELAY_KEY_FILE: path.join(dir, 'chain.key') };
    const run = async (args: string[]) => {
      let stdout = '';
      let stderr = '';
      const code = await runCli(args, {
        stdout: (t) => (stdout += t),
        stderr: (t) => (stderr += t),
        env,
      });
      return { code, stdout, stderr };
    };
    const texts: string[] = [];
    for (const round of [1, 2]) {
      for (const args of [
        ['keygen'],
        ['register', handle],
        ['send', handle, '{"hi":1}'],
        ['inbox', handle],
      ]) {
        const result = await run(args);
        expect({ round, args, code: result.code }).toEqual({ round, args, code: 0 });
        if (args[0] === 'inbox') texts.push(result.stdout);
      }
    }
    const lines = texts[1]!
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { text: string; from_handle: string });
    expect(lines.map((l) => [l.text, l.from_handle])).toEqual([
      ['{"hi":1}', handle],
      ['{"hi":1}', handle],
    ]);
    expect((await run(['register', handle])).stderr).toBe(
      `handle-relay: ${handle} is already registered to this key\n`,
    );
  });

  it('a relay that does not answer is named by its URL, not "fetch failed"', async () => {
    const nowhere = `http://127.0.0.1:${await freePort()}`;
    let stderr = '';
    const code = await runCli(['whois', 'someone', '--url', nowhere], {
      stdout: () => undefined,
      stderr: (t) => (stderr += t),
      env: {},
    });
    expect({ code, stderr }).toEqual({
      code: 1,
      stderr: `handle-relay: cannot reach the relay at ${nowhere} (ECONNREFUSED)\n`,
    });
  });

  it('whois of an unknown handle exits 1 with the 404', async () => {
    expect(await cli(['whois', 'nobody-at-all'])).toEqual({
      code: 1,
      stdout: '',
      stderr: 'handle-relay: 404 not_found: handle not found\n',
    });
  });

  it('prints usage and exits 2 for an unknown command or missing arguments', async () => {
    const unknown = await cli(['frobnicate']);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toMatch(/^handle-relay: unknown command frobnicate\n\nusage:/);
    expect((await cli(['register'])).code).toBe(2);
    expect((await cli(['proofs', 'get', 'x'])).code).toBe(2);
  });
});
