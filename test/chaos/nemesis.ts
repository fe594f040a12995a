import { randomInt } from 'node:crypto';
import { RELAY_PUBSUB, type Instance } from './cluster.js';
import { between, pick, sleep } from './http.js';
import type { PostgresServer } from './postgres-server.js';

/** One fault as it was injected: when, what, on which instance, for how long. */
export interface Fault {
  at: number;
  kind: string;
  target: string;
  ms?: number;
}

/**
 * Every 10–20 s picks one fault: kill -9 an instance (restarted at once), SIGSTOP one for
 * 5–15 s, cut one instance's database, S3 (refused, or silent: accepted and never answered)
 * or NATS connection for 5–15 s, or restart PostgreSQL (an immediate stop, then a start).
 * An instance under a fault is not picked again until it heals.
 */
export class Nemesis {
  readonly faults: Fault[] = [];
  private running = true;
  private loop: Promise<void> | undefined;
  private readonly healing = new Set<Promise<void>>();
  private readonly busy = new Set<Instance>();

  constructor(
    private readonly instances: readonly Instance[],
    private readonly postgres: PostgresServer,
    private readonly began: number,
  ) {}

  start(): void {
    this.loop = this.run();
  }

  /** Stops picking faults and waits until every fault under way has healed. */
  async stop(): Promise<void> {
    this.running = false;
    await this.loop;
    await Promise.all(this.healing);
  }

  private async run(): Promise<void> {
    while (this.running) {
      const wait = between(10_000, 20_000);
      for (const until = Date.now() + wait; this.running && Date.now() < until;) await sleep(250);
      if (!this.running) return;
      await this.strike().catch((err: unknown) => {
        console.error(`nemesis: ${err instanceof Error ? err.message : String(err)}`);
      });
    }
  }

  private record(kind: string, target: string, ms?: number): void {
    this.faults.push({ at: Date.now() - this.began, kind, target, ...(ms ? { ms } : {}) });
  }

  /** Runs `heal` after `ms` in the background, the instance busy meanwhile. */
  private later(
    instance: Instance | undefined,
    ms: number,
    heal: () => Promise<void> | void,
  ): void {
    if (instance) this.busy.add(instance);
    const healed = sleep(ms)
      .then(heal)
      .finally(() => {
        if (instance) this.busy.delete(instance);
        this.healing.delete(healed);
      });
    this.healing.add(healed);
  }

  private async strike(): Promise<void> {
    const free = this.instances.filter((i) => !this.busy.has(i));
    const kinds = ['kill -9', 'SIGSTOP', 'cut database', 'cut S3', 'restart PostgreSQL'];
    if (RELAY_PUBSUB === 'nats') kinds.push('cut NATS');
    const kind = pick(kinds);
    const ms = between(5_000, 15_000);
    if (kind === 'restart PostgreSQL') {
      this.record(kind, 'postgres');
      await this.postgres.restart();
      return;
    }
    const eligible = free.filter((i) =>
      kind === 'cut S3' ? i.proxies.s3 : kind === 'cut NATS' ? i.proxies.nats : true,
    );
    if (eligible.length === 0) return;
    const target = pick(eligible);
    switch (kind) {
      case 'kill -9':
        this.record(kind, target.name);
        await target.kill9();
        return;
      case 'SIGSTOP':
        this.record(kind, target.name, ms);
        target.signal('SIGSTOP');
        this.later(target, ms, () => target.signal('SIGCONT'));
        return;
      case 'cut database':
        this.record(kind, target.name, ms);
        await target.proxies.db.cut();
        this.later(target, ms, () => target.proxies.db.restore());
        return;
      case 'cut S3': {
        const s3 = target.proxies.s3!;
        const silent = randomInt(2) === 0;
        this.record(
          silent ? 'silence S3 (accepts, never answers)' : 'cut S3 (refused)',
          target.name,
          ms,
        );
        if (silent) s3.silence();
        else await s3.cut();
        this.later(target, ms, () => s3.restore());
        return;
      }
      case 'cut NATS': {
        const nats = target.proxies.nats!;
        this.record(kind, target.name, ms);
        await nats.cut();
        this.later(target, ms, () => nats.restore());
        return;
      }
    }
  }
}
