import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { TcpProxy, type TestS3 } from '@svc/testing';
import { freePort } from '@svc/testing/service-process';

const ROOT = path.resolve(import.meta.dirname, '..', '..');

/**
 * How the relays hear of each other's sends: `nats` (each relay reaches NATS through a proxy
 * of its own, which the nemesis may cut), or `postgres` for LISTEN/NOTIFY, their default.
 */
export const RELAY_PUBSUB: 'postgres' | 'nats' = 'nats';

/** The relays' server name. */
export const RELAY_SERVER = 'relay.chaos';

/** Where the shared parts are: the run's own PostgreSQL, the S3 gateway, NATS. */
export interface SharedParts {
  databaseUrl: string;
  s3: TestS3;
  bucket: string;
  natsUrl: string;
  /** The run's folder: configs, logs, storage roots. */
  dir: string;
}

type Kind = 'asset-store' | 'handle-relay';

/** Where a URL's host and port are. */
function hostPort(url: string, defaultPort: number): [string, number] {
  const u = new URL(url);
  return [u.hostname, Number(u.port || defaultPort)];
}

/**
 * One service process of the run, started from the built `dist` as an operator would, and
 * reaching PostgreSQL, S3 and NATS each through a TCP proxy of its own, so a fault can cut
 * one instance's connection alone.
 */
export class Instance {
  child: ChildProcess | undefined;
  /** SIGSTOPped, or down (killed, not yet restarted). */
  stopped = false;
  readonly base: string;

  private constructor(
    readonly name: string,
    readonly kind: Kind,
    readonly port: number,
    readonly dir: string,
    readonly proxies: { db: TcpProxy; s3?: TcpProxy; nats?: TcpProxy },
    private readonly configFile: string,
    private readonly env: NodeJS.ProcessEnv,
  ) {
    this.base = `http://127.0.0.1:${port}`;
  }

  /** Prepares instance `name` of `kind` on the shared parts (not yet started). */
  static async create(name: string, kind: Kind, parts: SharedParts): Promise<Instance> {
    const dir = path.join(parts.dir, name);
    fs.mkdirSync(dir, { recursive: true });
    const port = await freePort();
    const db = await TcpProxy.start(...hostPort(parts.databaseUrl, 5432));
    const dbUrl = db.rewrite(parts.databaseUrl);
    const env: NodeJS.ProcessEnv = { ...process.env };
    for (const key of Object.keys(env))
      if (/^(ASSET_STORE|HANDLE_RELAY)_/.test(key)) delete env[key];
    let config: string;
    const proxies: Instance['proxies'] = { db };
    if (kind === 'asset-store') {
      const s3 = await TcpProxy.start(...hostPort(parts.s3.endpoint, 80));
      proxies.s3 = s3;
      config = [
        `listen: 127.0.0.1:${port}`,
        `database_url: ${dbUrl}`,
        `storage_root: ${path.join(dir, 'root')}`,
        'storage_backend: s3',
        `s3_bucket: ${parts.bucket}`,
        `s3_endpoint: ${s3.rewrite(parts.s3.endpoint).replace(/\/$/, '')}`,
        `s3_region: ${parts.s3.region}`,
        `s3_force_path_style: ${parts.s3.forcePathStyle}`,
        's3_timeout_seconds: 5',
        's3_watch_seconds: 5',
        'admin_token: chaos-admin',
        'max_upload_bytes: 67108864',
        'log_level: warn',
      ].join('\n');
      Object.assign(env, {
        AWS_ACCESS_KEY_ID: parts.s3.accessKeyId,
        AWS_SECRET_ACCESS_KEY: parts.s3.secretAccessKey,
        AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
      });
    } else {
      const lines = [
        `bind: 127.0.0.1:${port}`,
        `db: ${dbUrl}`,
        `server: ${RELAY_SERVER}`,
        `vapid_key_path: ${path.join(dir, 'vapid.json')}`,
        // One log key for every relay: they sign the one log's heads.
        `log_key_path: ${path.join(parts.dir, 'log-key.json')}`,
        'rate_limit_per_minute: 0',
        'log_level: warn',
      ];
      if (RELAY_PUBSUB === 'nats') {
        const nats = await TcpProxy.start(...hostPort(parts.natsUrl, 4222));
        proxies.nats = nats;
        lines.push('pubsub: nats', `nats_url: nats://127.0.0.1:${nats.port}`);
      }
      config = lines.join('\n');
    }
    const configFile = path.join(dir, 'config.yaml');
    fs.writeFileSync(configFile, `${config}\n`);
    return new Instance(name, kind, port, dir, proxies, configFile, env);
  }

  /** The health path of this kind of service. */
  get healthPath(): string {
    return this.kind === 'asset-store' ? '/healthz' : '/v1/healthz';
  }

  /** Starts the process (its output appended to `<dir>/service.log`). */
  start(): void {
    const entry =
      this.kind === 'asset-store'
        ? path.join(ROOT, 'services', 'asset-store', 'dist', 'src', 'start.cjs')
        : path.join(ROOT, 'services', 'handle-relay', 'dist', 'src', 'main.js');
    const log = fs.openSync(path.join(this.dir, 'service.log'), 'a');
    const child = spawn(process.execPath, [entry, this.configFile], {
      cwd: ROOT,
      env: this.env,
      stdio: ['ignore', log, log],
    });
    fs.closeSync(log);
    this.child = child;
    this.stopped = false;
  }

  /** Whether it answers its health check with 200 now. */
  async healthy(): Promise<boolean> {
    try {
      const res = await fetch(`${this.base}${this.healthPath}`, {
        signal: AbortSignal.timeout(3_000),
      });
      await res.arrayBuffer();
      return res.status === 200;
    } catch {
      return false;
    }
  }

  /** Waits until healthy (a start reads the bucket and the index; give it a minute). */
  async waitHealthy(timeoutMs = 90_000): Promise<void> {
    const until = Date.now() + timeoutMs;
    while (!(await this.healthy())) {
      if (Date.now() > until) throw new Error(`${this.name} not healthy within ${timeoutMs} ms`);
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
  }

  /** SIGKILL, then a new process at once. */
  async kill9(): Promise<void> {
    const child = this.child;
    if (child && child.exitCode === null && child.signalCode === null) {
      const gone = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGKILL');
      await gone;
    }
    this.start();
  }

  signal(signal: 'SIGSTOP' | 'SIGCONT'): void {
    this.child?.kill(signal);
    this.stopped = signal === 'SIGSTOP';
  }

  /** SIGTERM and wait (a drain of at most 10 s). */
  async terminate(): Promise<void> {
    const child = this.child;
    if (!child || child.exitCode !== null || child.signalCode !== null) return;
    child.kill('SIGCONT');
    const gone = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGTERM');
    await Promise.race([gone, new Promise((resolve) => setTimeout(resolve, 15_000))]);
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  }

  /** Restores every proxy (a cut or a silence ends). */
  async heal(): Promise<void> {
    for (const proxy of Object.values(this.proxies)) await proxy?.restore();
    if (this.stopped) this.signal('SIGCONT');
  }

  async close(): Promise<void> {
    await this.terminate();
    for (const proxy of Object.values(this.proxies)) await proxy?.close();
  }
}
