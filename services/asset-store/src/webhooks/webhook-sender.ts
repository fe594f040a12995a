import { isPrivateAddress, privateRefusingLookup, urlHost } from '@svc/envelope';
import net from 'node:net';
import { Agent, request } from 'undici';
import type { AssetEventRow } from '../changes/change.table.js';
import { toChangeEvent } from '../changes/change.service.js';
import { webhookSignature } from './webhook-signature.js';

/**
 * Sends one event to a webhook's URL: the event as JSON, signed per Standard Webhooks (its
 * position is the `webhook-id`), over connections kept per target, never to a private
 * address unless allowed (checked when a name is looked up, and for literal addresses here).
 */
export class WebhookSender {
  readonly #agent: Agent;

  constructor(
    private readonly deps: { allowPrivate: boolean; timeoutMs: number; clock: () => number },
  ) {
    this.#agent = new Agent({
      connect: {
        ...(deps.allowPrivate ? {} : { lookup: privateRefusingLookup('webhook target') }),
        timeout: deps.timeoutMs,
      },
      headersTimeout: deps.timeoutMs,
      bodyTimeout: deps.timeoutMs,
    });
  }

  /** POSTs the event; answers the receiver's status, throws when there was none. */
  async post(url: string, secret: string, row: AssetEventRow): Promise<number> {
    const target = new URL(url);
    const host = urlHost(target);
    // A literal address is never looked up: checked here instead.
    if (!this.deps.allowPrivate && net.isIP(host) && isPrivateAddress(host)) {
      throw new Error(`refused: ${host} is a private address`);
    }
    const body = JSON.stringify(toChangeEvent(row));
    const id = String(row.pos);
    const timestamp = Math.floor(this.deps.clock() / 1000);
    const res = await request(target, {
      method: 'POST',
      dispatcher: this.#agent,
      headers: {
        'content-type': 'application/json',
        'user-agent': 'asset-store-webhooks',
        'webhook-id': id,
        'webhook-timestamp': String(timestamp),
        'webhook-signature': webhookSignature(secret, id, timestamp, body),
      },
      body,
      signal: AbortSignal.timeout(this.deps.timeoutMs),
    });
    // Only the status counts; the body is read to its end so the connection is reused.
    await res.body.dump().catch(() => undefined);
    return res.statusCode;
  }

  async close(): Promise<void> {
    await this.#agent.close().catch(() => undefined);
  }
}
