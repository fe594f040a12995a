import { spawn, spawnSync, type ChildProcess, type SpawnOptions } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';

/** Where cgroup v1's CPU controller is mounted on these machines. */
const CPU_CGROUP_ROOT = '/sys/fs/cgroup/cpu';
/** Kernel clock ticks per second (`getconf CLK_TCK`; 100 on Linux everywhere we run). */
const TICKS_PER_SECOND = 100;

/** CPU milliseconds a process has used, all its threads (user + system); 0 once it is gone. */
export function processCpuMs(pid: number): number {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    // Fields after the command (which may hold spaces) start after its closing parenthesis.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / TICKS_PER_SECOND;
  } catch {
    return 0;
  }
}

/** The pids whose command name is `comm` (`postgres`, `nats-server`). */
export function pidsNamed(comm: string): number[] {
  const pids: number[] = [];
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      if (fs.readFileSync(`/proc/${entry}/comm`, 'utf8').trim() === comm) pids.push(Number(entry));
    } catch {
      // Gone meanwhile.
    }
  }
  return pids;
}

/** CPU milliseconds used by every process named `comm` now alive (PostgreSQL: its backends). */
export function cpuMsOfAll(comm: string): number {
  return pidsNamed(comm).reduce((sum, pid) => sum + processCpuMs(pid), 0);
}

/**
 * A cgroup v1 CPU group with a quota: its processes together get at most `cpus` of one core
 * per period (`cpu.cfs_quota_us` / `cpu.cfs_period_us`). Made only where the controller is
 * mounted and writable (root on these machines); `create` answers undefined elsewhere.
 */
export class CpuCap {
  private constructor(
    readonly dir: string,
    readonly cpus: number,
  ) {}

  /** A fresh group `name` capped at `cpus` (0.4: 40 ms per 100 ms period). */
  static create(name: string, cpus: number): CpuCap | undefined {
    const dir = path.join(CPU_CGROUP_ROOT, name);
    try {
      fs.mkdirSync(dir, { recursive: true });
      const period = Number(fs.readFileSync(path.join(dir, 'cpu.cfs_period_us'), 'utf8'));
      fs.writeFileSync(path.join(dir, 'cpu.cfs_quota_us'), String(Math.round(period * cpus)));
      return new CpuCap(dir, cpus);
    } catch {
      return undefined;
    }
  }

  /** Moves a process (every thread of it) into the group. */
  add(pid: number): void {
    fs.writeFileSync(path.join(this.dir, 'cgroup.procs'), String(pid));
  }

  /** Periods the group ran out of quota in, and for how long it was held back (ms). */
  throttled(): { periods: number; throttledPeriods: number; throttledMs: number } {
    const stat = Object.fromEntries(
      fs
        .readFileSync(path.join(this.dir, 'cpu.stat'), 'utf8')
        .trim()
        .split('\n')
        .map((line) => line.split(' ') as [string, string]),
    );
    return {
      periods: Number(stat.nr_periods),
      throttledPeriods: Number(stat.nr_throttled),
      throttledMs: Number(stat.throttled_time) / 1e6,
    };
  }

  /** Removes the group (its processes must have exited). */
  remove(): void {
    try {
      fs.rmdirSync(this.dir);
    } catch {
      // Still in use or gone: left to the next run's `create`, which reuses it.
    }
  }
}

/** The hard limit on open files here (`ulimit -Hn`); Infinity when unlimited. */
export function openFilesHardLimit(): number {
  const out = spawnSync('bash', ['-c', 'ulimit -Hn'], { encoding: 'utf8' }).stdout.trim();
  return out === 'unlimited' ? Infinity : Number(out);
}

/**
 * Forks a Node script as `fork` would (an IPC channel), optionally with a raised open-file
 * limit (`ulimit -n`, through bash: Node cannot raise its own; at most the hard limit) and
 * into a CPU group.
 */
export function forkWith(
  script: string,
  options: { execArgv?: string[]; env?: NodeJS.ProcessEnv; nofile?: number; cap?: CpuCap },
): ChildProcess {
  const argv = [...(options.execArgv ?? []), script];
  const spawnOptions: SpawnOptions = {
    env: options.env ?? process.env,
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  };
  // Up to the hard limit: raising that needs CAP_SYS_RESOURCE, which a container may lack.
  const raise = `h=$(ulimit -Hn); n=${options.nofile}; [ "$h" != unlimited ] && [ "$h" -lt "$n" ] && n=$h; ulimit -n "$n"`;
  const child = options.nofile
    ? spawn(
        'bash',
        ['-c', `${raise} && exec "$@"`, 'bash', process.execPath, ...argv],
        spawnOptions,
      )
    : spawn(process.execPath, argv, spawnOptions);
  // The same pid once bash has exec'd: the group holds the Node process from its start.
  if (options.cap && child.pid) options.cap.add(child.pid);
  return child;
}

/** CPU used over a phase, in cores (1.0 = one core busy throughout). */
export interface PhaseUsage {
  /** Each measured process (the capped instances). */
  processes: number[];
  /** Share of each group's periods in which it ran out of quota. */
  throttled: number[];
  postgres: number;
  nats: number;
  /** This (the bench's) process: the load generator. */
  generator: number;
  /** The whole machine, in cores busy. */
  machine: number;
}

/** Busy and total jiffies of the whole machine (`/proc/stat`). */
function machineTicks(): { busy: number; total: number } {
  const cpu = fs
    .readFileSync('/proc/stat', 'utf8')
    .split('\n')[0]!
    .split(/\s+/)
    .slice(1)
    .map(Number);
  const total = cpu.reduce((a, b) => a + b, 0);
  return { busy: total - cpu[3]! - cpu[4]!, total };
}

/**
 * Runs `run` and measures what each part used meanwhile: the processes, their groups, the rest.
 * PostgreSQL counts `postgresPids` (the bench database's backends: on a shared machine the
 * server also serves others) when given, else every `postgres` process.
 */
export async function measurePhase<T>(
  pids: number[],
  caps: CpuCap[],
  run: () => Promise<T>,
  postgresPids?: () => Promise<number[]>,
): Promise<{ result: T; usage: PhaseUsage }> {
  const backends = postgresPids ? await postgresPids() : undefined;
  const pgCpu = () =>
    backends ? backends.reduce((sum, pid) => sum + processCpuMs(pid), 0) : cpuMsOfAll('postgres');
  const t0 = performance.now();
  const cpu = pids.map(processCpuMs);
  const capped = caps.map((c) => c.throttled());
  const pg = pgCpu();
  const nats = cpuMsOfAll('nats-server');
  const own = process.cpuUsage();
  const machine = machineTicks();
  const result = await run();
  const ms = performance.now() - t0;
  const m = machineTicks();
  const ownUsed = process.cpuUsage(own);
  const cores = os.cpus().length;
  return {
    result,
    usage: {
      processes: pids.map((pid, i) => (processCpuMs(pid) - cpu[i]!) / ms),
      throttled: caps.map((c, i) => {
        const now = c.throttled();
        const periods = now.periods - capped[i]!.periods;
        return periods ? (now.throttledPeriods - capped[i]!.throttledPeriods) / periods : 0;
      }),
      postgres: (pgCpu() - pg) / ms,
      nats: (cpuMsOfAll('nats-server') - nats) / ms,
      generator: (ownUsed.user + ownUsed.system) / 1000 / ms,
      machine: ((m.busy - machine.busy) / (m.total - machine.total)) * cores,
    },
  };
}

/** One line of a phase's usage; the first `active` processes show how often they were throttled. */
export function usageLine(u: PhaseUsage, active: number, name: string): string {
  const each = u.processes
    .map(
      (c, i) =>
        `${c.toFixed(2)}${i < active ? `(${(u.throttled[i]! * 100).toFixed(0)}% thr)` : ''}`,
    )
    .join(' ');
  return (
    `${name} ${each} | postgres ${u.postgres.toFixed(2)} | nats ${u.nats.toFixed(2)} | ` +
    `generator ${u.generator.toFixed(2)} | machine ${u.machine.toFixed(2)}/${os.cpus().length} cores`
  );
}

/** What bounds a phase, from its usage: capped instances, the machine, PostgreSQL, the generator. */
export function saturated(u: PhaseUsage, active: number, cpus: number, name: string): string {
  const named: string[] = [];
  const capped = u.throttled.slice(0, active).filter((t) => t > 0.5).length;
  if (capped > 0) named.push(`${capped} of ${active} ${name} at their ${cpus} CPU cap`);
  const cores = os.cpus().length;
  if (u.machine > cores * 0.92) named.push(`the machine (${cores} cores busy)`);
  if (u.postgres > 0.8) named.push(`PostgreSQL (${u.postgres.toFixed(2)} cores)`);
  if (u.generator > 0.8) named.push(`the generator (${u.generator.toFixed(2)} cores)`);
  return named.join(', ') || 'nothing at its limit';
}
