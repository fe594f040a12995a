import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

const REPO_ROOT = path.resolve(import.meta.dirname, '..', '..', '..');

/** One JSON log line of a service. */
export type LogLine = Record<string, unknown> & { msg?: string };

/** How a spawned service ended. */
export interface Exit {
  code: number | null;
  signal: NodeJS.Signals | null;
}

/** A service running as a child process, as an operator would start it. */
export interface ServiceProcess {
  child: ChildProcess;
  /** Everything written to stdout / stderr so far. */
  stdout: () => string;
  stderr: () => string;
  /** Resolves when the process has ended. */
  exited: Promise<Exit>;
  /** Resolves with the first JSON log line whose `msg` is `msg`; rejects if the process ends first. */
  waitForLog: (msg: string) => Promise<LogLine>;
}

/**
 * Node's arguments that run `entry`: from source through tsx; or, with
 * `TEST_SERVICES_FROM=dist` (CI sets it: its typecheck step has just built every `dist`), the
 * built `dist/src/….js` beside it, which starts seconds sooner than tsx on a busy machine.
 */
export function nodeArgsFor(entry: string): string[] {
  if (process.env.TEST_SERVICES_FROM === 'dist') {
    const at = entry.lastIndexOf(`${path.sep}src${path.sep}`);
    const built =
      at >= 0 && entry.endsWith('.ts')
        ? `${entry.slice(0, at)}${path.sep}dist${entry.slice(at, -3)}.js`
        : undefined;
    if (built && fs.existsSync(built)) return [built];
  }
  return ['--conditions=source', '--import', 'tsx', entry];
}

/**
 * Starts `entry` (a service's `src/main.ts`) from source through tsx (see `nodeArgsFor`), with the workspace
 * packages resolved to their sources too (`--conditions=source`), so no build is needed.
 * The service sees only `env` of its own settings: inherited `ASSET_STORE_*` and
 * `HANDLE_RELAY_*` variables are dropped.
 */
export function spawnService(
  entry: string,
  args: readonly string[],
  env: NodeJS.ProcessEnv = {},
): ServiceProcess {
  const inherited = Object.fromEntries(
    Object.entries(process.env).filter(([k]) => !/^(ASSET_STORE|HANDLE_RELAY)_/.test(k)),
  );
  const child = spawn(process.execPath, [...nodeArgsFor(entry), ...args], {
    cwd: REPO_ROOT,
    env: { ...inherited, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  const waiters: { msg: string; resolve: (l: LogLine) => void; reject: (e: Error) => void }[] = [];
  const seen: LogLine[] = [];
  const exited = new Promise<Exit>((resolve) => {
    child.once('exit', (code, signal) => {
      for (const w of waiters.splice(0)) {
        w.reject(new Error(`exited (${code ?? signal}) before logging "${w.msg}"; stderr: ${err}`));
      }
      resolve({ code, signal });
    });
  });
  let partial = '';
  child.stdout?.setEncoding('utf8').on('data', (chunk: string) => {
    out += chunk;
    const lines = (partial + chunk).split('\n');
    partial = lines.pop() ?? '';
    for (const text of lines) {
      let line: LogLine;
      try {
        line = JSON.parse(text) as LogLine;
      } catch {
        continue;
      }
      seen.push(line);
      for (const w of waiters.filter((x) => x.msg === line.msg)) {
        waiters.splice(waiters.indexOf(w), 1);
        w.resolve(line);
      }
    }
  });
  child.stderr?.setEncoding('utf8').on('data', (chunk: string) => (err += chunk));
  const waitForLog = (msg: string): Promise<LogLine> => {
    const found = seen.find((l) => l.msg === msg);
    if (found) return Promise.resolve(found);
    if (child.exitCode !== null || child.signalCode !== null) {
      return Promise.reject(new Error(`process already ended; stderr: ${err}`));
    }
    return new Promise((resolve, reject) => waiters.push({ msg, resolve, reject }));
  };
  return { child, stdout: () => out, stderr: () => err, exited, waitForLog };
}

/** A service running in a terminal of its own (a pseudo-terminal made by `script`). */
export interface TerminalProcess {
  child: ChildProcess;
  /** Everything the terminal showed so far (stdout and stderr together, as on a screen). */
  screen: () => string;
  /** Types Ctrl-C into the terminal: SIGINT to its foreground processes, as a person would. */
  interrupt: () => void;
  /** Resolves when the process in the terminal has ended, with its exit code. */
  exited: Promise<Exit>;
}

/**
 * Starts `entry` as `spawnService` does (from `dist` when CI built it), but inside a pseudo-terminal (util-linux `script`),
 * so its stdout is a TTY. The child's own exit code is `script`'s (`-e`).
 */
export function spawnServiceInTerminal(
  entry: string,
  args: readonly string[],
  env: NodeJS.ProcessEnv = {},
): TerminalProcess {
  const inherited = Object.fromEntries(
    Object.entries(process.env).filter(([k]) => !/^(ASSET_STORE|HANDLE_RELAY)_/.test(k)),
  );
  const quote = (word: string) => `'${word.replaceAll("'", `'\\''`)}'`;
  const command = [process.execPath, ...nodeArgsFor(entry), ...args]
    .map(quote)
    .join(' ');
  // `exec`: `script` runs the command through $SHELL, or /bin/sh (dash) where it is unset, as
  // in CI; a dash left in between took the Ctrl-C too and ended by it (130) after the
  // service itself had stopped with 0.
  const child = spawn('script', ['-qfec', `exec ${command}`, '/dev/null'], {
    cwd: REPO_ROOT,
    env: { ...inherited, ...env },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let screen = '';
  child.stdout?.setEncoding('utf8').on('data', (chunk: string) => (screen += chunk));
  child.stderr?.setEncoding('utf8').on('data', (chunk: string) => (screen += chunk));
  const exited = new Promise<Exit>((resolve) => {
    child.once('exit', (code, signal) => resolve({ code, signal }));
  });
  return {
    child,
    screen: () => screen,
    interrupt: () => child.stdin?.write('\x03'),
    exited,
  };
}

/** Stops a service that is still running (SIGKILL unless told otherwise) and waits for it. */
export async function stopIfRunning(
  service: ServiceProcess | undefined,
  signal: NodeJS.Signals = 'SIGKILL',
): Promise<void> {
  if (!service || service.child.exitCode !== null || service.child.signalCode !== null) return;
  service.child.kill(signal);
  await service.exited;
}

/** Polls `ready` every 100 ms until it answers true (a throw counts as false). */
export async function waitUntil(ready: () => Promise<boolean>, timeoutMs = 60_000): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (!(await ready().catch(() => false))) {
    if (Date.now() > until) throw new Error(`not ready within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

const KILL_DELAY_MS = 1;

/** What `loadThenKill` saw: the operations the service acknowledged, and those it cut off. */
export interface KilledUnderLoad<T> {
  acknowledged: T[];
  cutOff: number;
}

/**
 * Runs `op` (numbered from 0) from `workers` concurrent loops until `killAfter` operations
 * have been acknowledged, then kills the service with SIGKILL and waits for it to end. An
 * operation that throws after the kill was cut off by it; one that throws before is rethrown
 * (the service is killed all the same).
 *
 * The kill is not sent on an answer: a service that commits in groups answers a whole group
 * at once, so at that moment nothing may be left in flight. It is sent `KILL_DELAY_MS`
 * after every loop has a request out again, so it usually lands mid-request; a test process
 * stalled past that can still find every request answered, so a test that needs a request
 * certainly under way adds an `unfinishedRequest`.
 */
export async function loadThenKill<T>(
  service: ServiceProcess,
  options: { workers: number; killAfter: number; op: (n: number) => Promise<T> },
): Promise<KilledUnderLoad<T>> {
  const acknowledged: T[] = [];
  let next = 0;
  let cutOff = 0;
  let inFlight = 0;
  let killed = false;
  let killScheduled = false;
  let failure: Error | undefined;
  const kill = () => {
    if (killed) return;
    killed = true;
    service.child.kill('SIGKILL');
  };
  await Promise.all(
    Array.from({ length: options.workers }, async () => {
      while (!killed) {
        inFlight += 1;
        const pending = options.op(next++);
        if (
          !killScheduled &&
          acknowledged.length >= options.killAfter &&
          inFlight === options.workers
        ) {
          killScheduled = true;
          setTimeout(kill, KILL_DELAY_MS);
        }
        try {
          acknowledged.push(await pending);
        } catch (err) {
          if (killed) cutOff += 1;
          else {
            // A failure before the kill is the service's, not the kill's.
            failure ??= err instanceof Error ? err : new Error(String(err));
            kill();
          }
          return;
        } finally {
          inFlight -= 1;
        }
      }
    }),
  );
  await service.exited;
  if (failure !== undefined) throw failure;
  return { acknowledged, cutOff };
}

export { freePort, tryConnect } from './ports.js';
