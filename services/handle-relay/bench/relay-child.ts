// A handle-relay instance as a child process of a bench (relay-server.ts), so its CPU and heap
// are its own: optionally in a CPU group (bench:scale), with a raised open-file limit
// (100,000 streams), other settings (`pubsub: nats`) or a V8 CPU profile (BENCH_CPU_PROF).
import type { ChildProcess } from 'node:child_process';
import path from 'node:path';
import { forkWith, processCpuMs, type CpuCap } from '@svc/testing/bench-cpu';

/** A running relay child. */
export interface RelayChild {
  proc: ChildProcess;
  url: string;
  port: number;
  /** CPU milliseconds the child has used so far. */
  cpuMs(): number;
  /** Heap used after a full GC, and the open streams. */
  heap(): Promise<{ heap: number; streams: number }>;
  stop(): Promise<void>;
}

/** How to start one. */
export interface RelayChildOptions {
  dbUrl: string;
  /** Settings beyond the bench's defaults. */
  config?: Record<string, unknown>;
  cap?: CpuCap;
  nofile?: number;
}

/** Starts the relay child and waits until it listens. */
export async function startRelayChild(options: RelayChildOptions): Promise<RelayChild> {
  const profile = process.env.BENCH_CPU_PROF;
  const proc = forkWith(path.join(import.meta.dirname, 'relay-server.ts'), {
    execArgv: [
      '--conditions=source',
      '--import',
      'tsx',
      '--expose-gc',
      ...(profile ? ['--cpu-prof', `--cpu-prof-dir=${profile}`] : []),
    ],
    env: {
      ...process.env,
      BENCH_DATABASE_URL: options.dbUrl,
      BENCH_RELAY_CONFIG: JSON.stringify(options.config ?? {}),
    },
    nofile: options.nofile,
    cap: options.cap,
  });
  const port = await new Promise<number>((resolve, reject) => {
    proc.once('message', (m) => resolve((m as { port: number }).port));
    proc.once('exit', (code) => reject(new Error(`relay server exited ${code}`)));
  });
  return {
    proc,
    port,
    url: `http://127.0.0.1:${port}`,
    cpuMs: () => processCpuMs(proc.pid!),
    heap: () =>
      new Promise((resolve) => {
        proc.once('message', (m) => resolve(m as { heap: number; streams: number }));
        proc.send('heap');
      }),
    stop: () =>
      new Promise((resolve) => {
        if (proc.exitCode !== null) return resolve();
        proc.once('exit', () => resolve());
        proc.send('stop');
      }),
  };
}
