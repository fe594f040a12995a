import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

/**
 * The folder of PostgreSQL's programs: `PG_BIN`, else the newest of Debian's
 * `/usr/lib/postgresql/<major>/bin`.
 */
function binDir(): string {
  if (process.env.PG_BIN) return process.env.PG_BIN;
  const root = '/usr/lib/postgresql';
  const majors = fs.existsSync(root)
    ? fs.readdirSync(root).sort((a, b) => Number(b) - Number(a))
    : [];
  const found = majors
    .map((m) => path.join(root, m, 'bin'))
    .find((d) => fs.existsSync(path.join(d, 'initdb')));
  if (!found) throw new Error('no PostgreSQL programs (initdb, pg_ctl): set PG_BIN');
  return found;
}

/**
 * A PostgreSQL server of the chaos run's own, in a temporary folder on a port of its own, so
 * restarting it hurts no other user of the machine's server. PostgreSQL refuses to run as
 * root: as root its programs run as the `postgres` user.
 */
export class PostgresServer {
  private constructor(
    readonly dir: string,
    readonly port: number,
    private readonly bin: string,
  ) {}

  /** The superuser URL of its `postgres` database (each service keeps a schema of its own there). */
  url(): string {
    return `postgres://postgres@127.0.0.1:${this.port}/postgres`;
  }

  /** initdb (trust, no fsync: the run never crashes the machine, only the server), then start. */
  static async start(port: number): Promise<PostgresServer> {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'chaos-pg-'));
    const server = new PostgresServer(dir, port, binDir());
    if (process.getuid?.() === 0) await run('chown', ['postgres:postgres', dir]);
    await server.ctl('initdb', ['-D', server.data, '-A', 'trust', '-U', 'postgres', '--no-sync']);
    await server.startServer();
    return server;
  }

  private get data(): string {
    return path.join(this.dir, 'data');
  }

  /** Runs one of PostgreSQL's programs, as `postgres` when this process is root. */
  private async ctl(program: string, args: string[]): Promise<void> {
    const file = path.join(this.bin, program);
    if (process.getuid?.() === 0) await run('runuser', ['-u', 'postgres', '--', file, ...args]);
    else await run(file, args);
  }

  private startServer(): Promise<void> {
    const options = [
      `-p ${this.port}`,
      `-k ${this.dir}`,
      '-c listen_addresses=127.0.0.1',
      '-c fsync=off',
      '-c max_connections=300',
    ].join(' ');
    return this.ctl('pg_ctl', [
      '-D',
      this.data,
      '-l',
      path.join(this.dir, 'log'),
      '-o',
      options,
      '-w',
      'start',
    ]);
  }

  /** A crash and a start: `immediate` stop (no checkpoint, every connection cut), then start. */
  async restart(): Promise<void> {
    await this.ctl('pg_ctl', ['-D', this.data, '-m', 'immediate', '-w', 'stop']);
    await this.startServer();
  }

  /** Stops the server and removes its folder. */
  async destroy(): Promise<void> {
    await this.ctl('pg_ctl', ['-D', this.data, '-m', 'fast', '-w', 'stop']).catch(() => undefined);
    fs.rmSync(this.dir, { recursive: true, force: true });
  }
}
