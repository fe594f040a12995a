// bench:identity: registrations/s, lookups/s and signed proof updates/s of handle-relay,
// printed beside baselines measured in the same run (bare node:crypto verifies/s, a bare
// Express 5 parse+verify route, single-row Postgres inserts/s). Loopback only, bounded.
import { fork, type ChildProcess } from 'node:child_process';
import { createPublicKey, generateKeyPairSync, sign, verify, type KeyObject } from 'node:crypto';
import path from 'node:path';
import { createTestDatabase } from '@svc/config/testing';
import { openDatabase } from '@svc/config/database';
import autocannon from 'autocannon';
import { canonicalize } from 'json-canonicalize';
import { sql } from 'kysely';
import { verifySignedRequest } from '../src/auth/signed-request.js';

const PHASE_SECONDS = Number(process.env.BENCH_SECONDS ?? 3);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const CONNECTIONS = 16;
const REGISTRATIONS = Number(process.env.BENCH_REGISTRATIONS ?? 4500);
const SPKI_PREFIX_LEN = 12;

interface Identity {
  privateKey: KeyObject;
  publicHex: string;
  primary: string;
}

function identity(): Identity {
  const { privateKey, publicKey } = generateKeyPairSync('ed25519');
  const publicHex = publicKey
    .export({ format: 'der', type: 'spki' })
    .subarray(SPKI_PREFIX_LEN)
    .toString('hex');
  return { privateKey, publicHex, primary: `ed25519:${publicHex}` };
}

function signedRegistration(server: string, handle: string, id: Identity): string {
  const payload = { server, handle, primary: id.primary, ts: Math.floor(Date.now() / 1000) };
  const sig = sign(null, Buffer.from(canonicalize(payload)), id.privateKey).toString('hex');
  return JSON.stringify({
    payload,
    signature: { alg: 'ed25519-sha512-jcs', key: id.primary, sig },
  });
}

function authValue(id: Identity, lines: string[]): string {
  const ts = Math.floor(Date.now() / 1000);
  const sig = sign(null, Buffer.from([...lines, String(ts)].join('\n')), id.privateKey);
  return `${ts}:${sig.toString('hex')}`;
}

/** CPU µs per call of `fn`, over `calls` calls. */
function cpuPerCall(calls: number, fn: () => void): number {
  const cpu0 = process.cpuUsage();
  for (let i = 0; i < calls; i++) fn();
  const cpu = process.cpuUsage(cpu0);
  return (cpu.user + cpu.system) / calls;
}

/**
 * Measures two functions in alternating short rounds, so load changes on a shared machine
 * hit both alike; returns the median µs per call of each and the median of the per-round ratios.
 */
function interleaved(rounds: number, calls: number, a: () => void, b: () => void) {
  const as: number[] = [];
  const bs: number[] = [];
  const ratios: number[] = [];
  for (let r = 0; r < rounds; r++) {
    const x = cpuPerCall(calls, a);
    const y = cpuPerCall(calls, b);
    as.push(x);
    bs.push(y);
    ratios.push(y / x);
  }
  const median = (v: number[]) => [...v].sort((p, q) => p - q)[Math.floor(v.length / 2)] ?? NaN;
  return { a: median(as), b: median(bs), ratio: median(ratios) };
}

interface Child {
  proc: ChildProcess;
  url: string;
  cpu(): Promise<number>;
  stop(): Promise<void>;
}

async function startChild(mode: string, env: NodeJS.ProcessEnv): Promise<Child> {
  const proc = fork(path.join(import.meta.dirname, 'bench-server.ts'), [mode], {
    execArgv: ['--conditions=source', '--import', 'tsx'],
    env: { ...process.env, ...env },
  });
  const port = await new Promise<number>((resolve, reject) => {
    proc.once('message', (m) => resolve((m as { port: number }).port));
    proc.once('exit', (code) => reject(new Error(`bench server exited ${code}`)));
  });
  return {
    proc,
    url: `http://127.0.0.1:${port}`,
    cpu: () =>
      new Promise((resolve) => {
        proc.once('message', (m) => {
          const { user, system } = (m as { cpu: NodeJS.CpuUsage }).cpu;
          resolve(user + system);
        });
        proc.send('cpu');
      }),
    stop: () =>
      new Promise((resolve) => {
        proc.once('exit', () => resolve());
        proc.send('stop');
      }),
  };
}

interface Phase {
  rps: number;
  total: number;
  non2xx: number;
  errors: number;
  p99: number;
  cpuMicrosPerRequest: number;
}

async function phase(child: Child, opts: Omit<autocannon.Options, 'url'>): Promise<Phase> {
  const cpu0 = await child.cpu();
  const r = await autocannon({ connections: CONNECTIONS, ...opts, url: child.url });
  const cpu = (await child.cpu()) - cpu0;
  return {
    rps: r.requests.total / r.duration,
    total: r.requests.total,
    non2xx: r.non2xx,
    errors: r.errors,
    p99: r.latency.p99,
    cpuMicrosPerRequest: cpu / Math.max(1, r.requests.total),
  };
}

/** Cycles through pre-built requests; each connection takes the next one. */
function cycling(requests: autocannon.Request[], once = false): autocannon.Request[] {
  let i = 0;
  return [
    {
      setupRequest: (req) => {
        if (once && i >= requests.length) return null as unknown as autocannon.Request;
        const next = requests[i % requests.length];
        i += 1;
        return { ...req, ...next };
      },
    },
  ];
}

/** A scratch table for the single-row insert baseline; `run` measures inserts/s. */
async function openInsertBench() {
  const testDb = await createTestDatabase('bench_insert');
  const handle = await openDatabase<{ bench_row: { id: string; body: string } }>(
    testDb.target,
    'bench_insert',
  );
  await sql`create table bench_row (id text primary key, body text not null)`.execute(handle.db);
  let round = 0;
  return {
    async run(seconds: number): Promise<number> {
      round += 1;
      let n = 0;
      const end = Date.now() + seconds * 1000;
      const t0 = process.hrtime.bigint();
      await Promise.all(
        Array.from({ length: CONNECTIONS }, async (_, w) => {
          while (Date.now() < end) {
            await handle.db
              .insertInto('bench_row')
              .values({ id: `${round}-${w}-${n}`, body: 'x'.repeat(120) })
              .execute();
            n += 1;
          }
        }),
      );
      return n / (Number(process.hrtime.bigint() - t0) / 1e9);
    },
    async close(): Promise<void> {
      await handle.close();
      await testDb.drop();
    },
  };
}

const median = (v: readonly number[]) =>
  [...v].sort((p, q) => p - q)[Math.floor(v.length / 2)] ?? NaN;

const fmt = (n: number, digits = 0) =>
  n.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits });

async function main(): Promise<void> {
  const dbUrl = process.env.BENCH_DATABASE_URL ?? process.env.TEST_DATABASE_URL;
  console.log(
    `handle-relay bench:identity — ${dbUrl ? `Postgres ${new URL(dbUrl).host}` : 'embedded PGlite'}, ${CONNECTIONS} connections, ${PHASE_SECONDS} s phases\n`,
  );

  // Baseline 1: bare node:crypto verify with a cached KeyObject.
  const id = identity();
  const key = createPublicKey({
    key: Buffer.from(`302a300506032b6570032100${id.publicHex}`, 'hex'),
    format: 'der',
    type: 'spki',
  });
  const lines = ['PUT', '/v1/profile/alice/proofs'];
  const value = authValue(id, lines);
  const [tsText, sigHex] = value.split(':') as [string, string];
  const msg = Buffer.from([...lines, tsText].join('\n'));
  const sigBytes = Buffer.from(sigHex, 'hex');
  // Against it, the relay's whole X-ID-Auth path (parse, skew, canonical lines, cached key).
  const auth = interleaved(
    15,
    2000,
    () => {
      if (!verify(null, msg, key, sigBytes)) throw new Error('bench verify failed');
    },
    () => {
      verifySignedRequest({ value, primary: id.primary, lines, now: Date.now() });
    },
  );
  const bare = { cpuMicros: auth.a, perSecond: 1e6 / auth.a };
  const full = { cpuMicros: auth.b, perSecond: 1e6 / auth.b };

  // Baselines 2 and 3 (a bare Express 5 JSON parse + verify route, single-row inserts)
  // alternate with registration rounds, so load from elsewhere on the machine hits all alike.
  const expressChild = await startChild('express-verify', {});
  const verifyBodies = Array.from({ length: 2000 }, (_, i) => ({
    method: 'POST' as const,
    path: '/verify',
    headers: { 'content-type': 'application/json' },
    body: signedRegistration('bench.test', `base-${i}`, identity()),
  }));
  const insertBench = await openInsertBench();
  const appDb = await createTestDatabase('bench_identity');
  const app = await startChild('app', {
    BENCH_DATABASE_URL: appDb.target.kind === 'postgres' ? appDb.target.url : '',
  });
  const ids = Array.from({ length: REGISTRATIONS }, () => identity());
  const handles = ids.map((_, i) => `bench-${i}`);
  const registrations = ids.map((who, i) => ({
    method: 'POST' as const,
    path: '/v1/register',
    headers: { 'content-type': 'application/json' },
    body: signedRegistration('bench.test', handles[i] ?? '', who),
  }));
  const perRound = Math.floor(registrations.length / ROUNDS);
  const rounds: { express: Phase; inserts: number; reg: Phase }[] = [];
  for (let r = 0; r < ROUNDS; r++) {
    const express = await phase(expressChild, {
      duration: PHASE_SECONDS,
      requests: cycling(verifyBodies),
    });
    const inserts = await insertBench.run(PHASE_SECONDS);
    const chunk = registrations.slice(r * perRound, (r + 1) * perRound);
    const reg = await phase(app, { amount: chunk.length, requests: cycling(chunk, true) });
    rounds.push({ express, inserts, reg });
  }
  await expressChild.stop();
  await insertBench.close();
  const registered = handles.slice(0, perRound * ROUNDS);

  const lookups = await phase(app, {
    duration: PHASE_SECONDS,
    requests: cycling(registered.map((h) => ({ method: 'GET' as const, path: `/v1/u/${h}` }))),
  });
  const proofs = await phase(app, {
    duration: PHASE_SECONDS,
    requests: cycling(
      ids.slice(0, 2000).map((who, i) => ({
        method: 'PUT' as const,
        path: `/v1/profile/${handles[i]}/proofs`,
        headers: {
          'content-type': 'application/json',
          'x-id-auth': authValue(who, ['PUT', `/v1/profile/${handles[i]}/proofs`]),
        },
        body: JSON.stringify({ proofs: [`github:${handles[i]}`, `dns:${handles[i]}.example`] }),
      })),
    ),
  });
  await app.stop();
  await appDb.drop();

  const expressRps = median(rounds.map((x) => x.express.rps));
  const inserts = median(rounds.map((x) => x.inserts));
  const regRps = median(rounds.map((x) => x.reg.rps));
  // Per round: registrations/s over the target of that round; the median decides.
  const regRatio = median(
    rounds.map((x) => x.reg.rps / (0.5 * Math.min(x.express.rps, x.inserts))),
  );
  const regCpu = median(rounds.map((x) => x.reg.cpuMicrosPerRequest));
  const regNon2xx = rounds.reduce((n, x) => n + x.reg.non2xx + x.reg.errors, 0);
  const authRatio = auth.ratio;
  const row = (name: string, v: string, note = '') =>
    console.log(`${name.padEnd(44)}${v.padStart(14)}  ${note}`);
  console.log('baselines');
  row(
    '  node:crypto verify (cached KeyObject)',
    `${fmt(bare.perSecond)}/cpu-s`,
    `${fmt(bare.cpuMicros, 1)} µs CPU each`,
  );
  row(
    '  Express 5 JSON parse + verify route',
    `${fmt(expressRps)}/s`,
    `rounds ${rounds.map((x) => fmt(x.express.rps)).join(', ')}; ${fmt(median(rounds.map((x) => x.express.cpuMicrosPerRequest)), 1)} µs server CPU/req`,
  );
  row(
    '  single-row Postgres inserts',
    `${fmt(inserts)}/s`,
    `rounds ${rounds.map((x) => fmt(x.inserts)).join(', ')}`,
  );
  console.log('handle-relay');
  row(
    '  registrations',
    `${fmt(regRps)}/s`,
    `rounds ${rounds.map((x) => fmt(x.reg.rps)).join(', ')}; ${perRound * ROUNDS} sent, failed ${regNon2xx}, ${fmt(regCpu, 1)} µs CPU/req`,
  );
  row(
    '  lookups GET /v1/u/{handle}',
    `${fmt(lookups.rps)}/s`,
    `non-2xx ${lookups.non2xx}, p99 ${lookups.p99} ms, ${fmt(lookups.cpuMicrosPerRequest, 1)} µs CPU/req`,
  );
  row(
    '  signed proof updates PUT',
    `${fmt(proofs.rps)}/s`,
    `non-2xx ${proofs.non2xx}, p99 ${proofs.p99} ms, ${fmt(proofs.cpuMicrosPerRequest, 1)} µs CPU/req`,
  );
  row(
    '  X-ID-Auth verifier alone (cached key)',
    `${fmt(full.perSecond)}/cpu-s`,
    `${fmt(full.cpuMicros, 1)} µs CPU each`,
  );
  console.log('targets');
  row(
    '  registrations / (0.5 × min(express, inserts))',
    `${fmt(regRatio, 2)}×`,
    `median over rounds, target ≥ 1: ${regRatio >= 1 ? 'MET' : 'MISSED'}`,
  );
  row(
    '  auth CPU per signed request ≤ 1.15 × verify',
    `${fmt(authRatio, 3)}×`,
    `${fmt(full.cpuMicros, 1)} vs ${fmt(bare.cpuMicros, 1)} µs: ${authRatio <= 1.15 ? 'MET' : 'MISSED'}`,
  );
  row(
    '  whole server CPU per signed PUT / verify',
    `${fmt(proofs.cpuMicrosPerRequest / bare.cpuMicros, 2)}×`,
    '(HTTP, JSON, SQL included; for information)',
  );
  if (regNon2xx || lookups.non2xx || proofs.non2xx) process.exitCode = 1;
}

await main();
