import {
  authLines,
  generateKeyPair,
  RelayClient,
  signedAuthValue,
  type InboxMessage,
  type KeyPair,
} from '../../services/handle-relay/src/client/index.js';
import { RELAY_SERVER, type Instance } from './cluster.js';
import { between, call, pick, sleep, type Tally } from './http.js';

/** A handle of the run, and what its readers saw. */
export interface User {
  handle: string;
  keys: KeyPair;
  /** Every seq its stream delivered, in order, duplicates included. */
  streamed: number[];
  /** Stream connections it opened. */
  connects: number;
  /** Seqs the inbox poller saw, and the highest it had seen (its cursor). */
  polled: Set<number>;
  polledMax: number;
}

/** A send the relay acknowledged (201): to whom, which envelope, at which seq. */
export interface AckedSend {
  to: string;
  id: string;
  seq: number;
}

/** A fetch whose every exchange ends within `ms`. */
const boundedFetch =
  (ms: number): typeof fetch =>
  (input, init) =>
    fetch(input, { ...init, signal: AbortSignal.timeout(ms) });

/** A relay client on `base` whose requests end within 10 s. */
export function relayClient(base: string): RelayClient {
  return new RelayClient({ baseUrl: base, fetch: boundedFetch(10_000) });
}

/**
 * The relay half of the client load: handles registered before the faults begin, sends to
 * them through random instances, one poller reading every inbox through its signed cursor,
 * and a live stream per handle that reconnects to a random instance after every drop (or
 * `lagged`, or 20 s of silence) with `since` = the last seq it got.
 */
export class RelayLoad {
  readonly users: User[] = [];
  readonly acked: AckedSend[] = [];
  private running = true;
  private streaming = true;
  private readonly workers: Promise<void>[] = [];
  private readonly streams = new Set<AbortController>();
  private seq = 0;
  private polls = 0;

  constructor(
    private readonly relays: readonly Instance[],
    private readonly tally: Tally,
  ) {}

  /** Registers `count` handles (before any fault). */
  async register(count: number): Promise<void> {
    for (let i = 0; i < count; i++) {
      const keys = generateKeyPair();
      const handle = `chaos-${i}-${Date.now().toString(36)}`;
      await relayClient(this.relays[i % this.relays.length]!.base).register(
        RELAY_SERVER,
        handle,
        keys,
      );
      this.users.push({ handle, keys, streamed: [], connects: 0, polled: new Set(), polledMax: 0 });
    }
  }

  start(senders: number): void {
    for (let i = 0; i < senders; i++) this.workers.push(this.loop(() => this.send()));
    this.workers.push(this.loop(() => this.poll()));
    for (const user of this.users) this.workers.push(this.follow(user));
  }

  /** Stops sending and polling; the streams go on until `closeStreams`. */
  async stopSending(): Promise<void> {
    this.running = false;
    await Promise.all(this.workers.slice(0, this.workers.length - this.users.length));
  }

  /** Waits until every stream has delivered `upTo[handle]`, or `timeoutMs` passed. */
  async streamsCaughtUp(upTo: Map<string, number>, timeoutMs: number): Promise<void> {
    const until = Date.now() + timeoutMs;
    const behind = () =>
      this.users.some((u) => Math.max(0, ...u.streamed) < (upTo.get(u.handle) ?? 0));
    while (behind() && Date.now() < until) await sleep(200);
  }

  /** Ends the streams and waits for every worker. */
  async closeStreams(): Promise<void> {
    this.streaming = false;
    for (const controller of this.streams) controller.abort();
    await Promise.all(this.workers);
  }

  private async loop(step: () => Promise<void>): Promise<void> {
    while (this.running) {
      await step().catch(() => undefined);
      await sleep(between(10, 80));
    }
  }

  private async send(): Promise<void> {
    const to = pick(this.users).handle;
    const id = `m${++this.seq}`;
    const answer = await call(`${pick(this.relays).base}/v1/messages`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ to, envelope: { chaos: id } }),
      timeoutMs: 15_000,
    }).catch(() => undefined);
    if (answer?.status !== 201) {
      this.tally.refused('send', answer);
      return;
    }
    this.acked.push({ to, id, seq: (answer.body as { seq: number }).seq });
    this.tally.add('send', 'acked');
  }

  /** One signed inbox read after the poller's cursor, for one handle in turn. */
  private async poll(): Promise<void> {
    const user = this.users[this.polls++ % this.users.length]!;
    const page = await relayClient(pick(this.relays).base)
      .inbox(user.handle, user.keys, { since: user.polledMax, limit: 500 })
      .catch(() => undefined);
    this.tally.add('inbox read', page ? 'answered' : 'failed');
    for (const m of page?.messages ?? []) {
      user.polled.add(m.seq);
      user.polledMax = Math.max(user.polledMax, m.seq);
    }
    await sleep(200);
  }

  private async follow(user: User): Promise<void> {
    while (this.streaming) {
      const controller = new AbortController();
      this.streams.add(controller);
      try {
        await this.streamOnce(user, controller);
      } catch {
        // A drop: reconnect below.
      } finally {
        this.streams.delete(controller);
      }
      if (this.streaming) await sleep(200);
    }
  }

  /**
   * One stream connection until it drops, lags, stays silent 20 s, or the client leaves
   * after 15–45 s (as a phone does), so every run resumes streams many times, faults or not.
   */
  private async streamOnce(user: User, controller: AbortController): Promise<void> {
    const since = Math.max(0, ...user.streamed);
    const auth = signedAuthValue(user.keys.secretKey, authLines.stream(user.handle));
    const query = new URLSearchParams({ auth, since: String(since) });
    let ended = 'dropped';
    const end = (why: string) => {
      ended = why;
      controller.abort();
    };
    let idle = setTimeout(() => end('silent 20 s'), 20_000);
    const quiet = () => {
      clearTimeout(idle);
      idle = setTimeout(() => end('silent 20 s'), 20_000);
    };
    const leave = setTimeout(() => end('left by the client'), between(15_000, 45_000));
    try {
      const res = await fetch(
        `${pick(this.relays).base}/v1/inbox/${user.handle}/stream?${query.toString()}`,
        { signal: controller.signal },
      );
      if (res.status !== 200 || !res.body) {
        await res.body?.cancel();
        return;
      }
      user.connects += 1;
      this.tally.add('stream connection', 'opened');
      const decoder = new TextDecoder();
      let buffer = '';
      for await (const chunk of res.body) {
        quiet();
        buffer += decoder.decode(chunk as Uint8Array, { stream: true });
        for (let end = buffer.indexOf('\n\n'); end >= 0; end = buffer.indexOf('\n\n')) {
          const block = buffer.slice(0, end);
          buffer = buffer.slice(end + 2);
          const event = /^event: (.*)$/m.exec(block)?.[1] ?? 'message';
          const data = /^data: (.*)$/m.exec(block)?.[1];
          if (event === 'lagged') {
            ended = 'lagged';
            return;
          }
          if (event === 'message' && data)
            user.streamed.push((JSON.parse(data) as InboxMessage).seq);
        }
      }
    } finally {
      clearTimeout(idle);
      clearTimeout(leave);
      if (this.streaming) this.tally.add('stream connection', `ended: ${ended}`);
    }
  }
}
