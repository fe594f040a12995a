import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';
import type { ChangeEvent } from '../src/changes/change.service.js';

/** One request the receiver took, verified with the `standardwebhooks` library. */
export interface Received {
  id: string;
  event: ChangeEvent;
  /** Whether the library accepted the signature with the webhook's secret. */
  verified: boolean;
  /** What the receiver answered. */
  status: number;
  at: number;
}

/**
 * A real HTTP receiver for webhook deliveries: it verifies each with the Standard Webhooks
 * library (the secret set once the webhook exists) and answers what `answer` says (200 by
 * default; a test makes it fail or go down).
 */
export class WebhookReceiver {
  readonly received: Received[] = [];
  secret = '';
  answer: (event: ChangeEvent, seen: number) => number = () => 200;
  /** While true, requests are read and never answered (a receiver that hangs). */
  hold = false;
  /** Requests taken while holding (not in `received`). */
  held = 0;
  #server = http.createServer((req, res) => this.#take(req, res));
  #seen = new Map<string, number>();
  #waiters: (() => void)[] = [];
  #port = 0;

  static async start(): Promise<WebhookReceiver> {
    const receiver = new WebhookReceiver();
    await receiver.up();
    return receiver;
  }

  get url(): string {
    return `http://127.0.0.1:${this.#port}/hook`;
  }

  /** Goes away: open connections dropped, new ones refused, until `up()` (same port). */
  async down(): Promise<void> {
    this.#server.closeAllConnections();
    await new Promise<void>((resolve) => this.#server.close(() => resolve()));
  }

  /** Listens (again) on its port: the first time on a free one. */
  async up(): Promise<void> {
    await new Promise<void>((resolve, reject) => {
      this.#server.once('error', reject);
      this.#server.listen(this.#port, '127.0.0.1', () => {
        this.#server.off('error', reject);
        resolve();
      });
    });
    this.#port = (this.#server.address() as AddressInfo).port;
  }

  /** The deliveries answered 2xx, in arrival order. */
  get delivered(): Received[] {
    return this.received.filter((r) => r.status >= 200 && r.status < 300);
  }

  async until(test: () => boolean, ms = 15_000): Promise<void> {
    const deadline = Date.now() + ms;
    while (!test()) {
      const left = deadline - Date.now();
      if (left <= 0)
        throw new Error(`receiver: not met in ${ms} ms (${this.received.length} received)`);
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, Math.min(left, 200));
        this.#waiters.push(() => {
          clearTimeout(timer);
          resolve();
        });
      });
    }
  }

  async close(): Promise<void> {
    if (this.#server.listening) await this.down();
  }

  #take(req: http.IncomingMessage, res: http.ServerResponse): void {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      let verified = false;
      try {
        new Webhook(this.secret).verify(body, req.headers as Record<string, string>);
        verified = true;
      } catch {
        verified = false;
      }
      if (this.hold) {
        this.held++;
        return;
      }
      const event = JSON.parse(body) as ChangeEvent;
      const id = String(req.headers['webhook-id']);
      const seen = (this.#seen.get(id) ?? 0) + 1;
      this.#seen.set(id, seen);
      const status = this.answer(event, seen);
      this.received.push({ id, event, verified, status, at: Date.now() });
      res.writeHead(status).end();
      const waiters = this.#waiters;
      this.#waiters = [];
      waiters.forEach((w) => w());
    });
  }
}
