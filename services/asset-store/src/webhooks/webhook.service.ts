import { randomUUID } from 'node:crypto';
import { errors } from '@svc/envelope';
import type { Kysely } from 'kysely';
import type { Database } from '../db/database.js';
import type { EventType } from '../changes/event-types.js';
import { newWebhookSecret } from './webhook-signature.js';
import { targetProblem } from './webhook-target.js';
import {
  deleteWebhook,
  findWebhook,
  insertWebhook,
  listWebhooks,
  pruneAttempts,
  recentAttempts,
} from './webhook.repository.js';
import type { WebhookAttemptRow, WebhookRow } from './webhook.table.js';

/** A webhook as `GET /admin/webhooks` shows it (the secret only at creation). */
export interface Webhook {
  id: string;
  url: string;
  /** The types delivered; every type when none were given. */
  types: EventType[] | null;
  created_at: number;
}

/** One attempt as `GET /admin/webhooks/{id}/deliveries` shows it. */
export interface DeliveryAttempt {
  event_id: string;
  /** The HTTP status answered, or null when none was (`error` says why). */
  status: number | null;
  error: string | null;
  at: number;
  duration_ms: number;
}

const DAY_MS = 86_400_000;
/** Attempts shown per webhook. */
const RECENT_ATTEMPTS = 100;

function toWebhook(row: WebhookRow): Webhook {
  return {
    id: row.id,
    url: row.url,
    types: row.types as EventType[] | null,
    created_at: Number(row.created_at),
  };
}

function toAttempt(row: WebhookAttemptRow): DeliveryAttempt {
  return {
    event_id: String(row.event_id),
    status: row.status,
    error: row.error,
    at: Number(row.at),
    duration_ms: row.duration_ms,
  };
}

const webhookNotFound = () => errors.notFound('webhook not found');

/** The admin side of webhooks: create (URL checked), list, delete, the deliveries log. */
export class WebhookService {
  constructor(
    private readonly deps: {
      db: Kysely<Database>;
      clock: () => number;
      allowPrivate: boolean;
      retentionDays: number;
      /** Told once a webhook is saved: this instance's dispatcher starts at once, not within a second. */
      created?: () => void;
    },
  ) {}

  /** 400 when the URL is not http(s) or its host resolves to a private address (unless allowed). */
  async create(input: { url: string; types?: EventType[] }): Promise<Webhook & { secret: string }> {
    const problem = await targetProblem(new URL(input.url), this.deps.allowPrivate);
    if (problem) throw errors.badRequest(`invalid url: ${problem}`);
    const row = {
      id: randomUUID(),
      url: input.url,
      types: input.types ? [...new Set(input.types)] : null,
      secret: newWebhookSecret(),
      created_at: this.deps.clock(),
    };
    await insertWebhook(this.deps.db, row);
    this.deps.created?.();
    return { ...toWebhook({ ...row, cursor: 0 }), secret: row.secret };
  }

  async list(): Promise<Webhook[]> {
    return (await listWebhooks(this.deps.db)).map(toWebhook);
  }

  async remove(id: string): Promise<void> {
    if (!(await deleteWebhook(this.deps.db, id))) throw webhookNotFound();
  }

  async deliveries(id: string): Promise<DeliveryAttempt[]> {
    if (!(await findWebhook(this.deps.db, id))) throw webhookNotFound();
    return (await recentAttempts(this.deps.db, id, RECENT_ATTEMPTS)).map(toAttempt);
  }

  /** Log entries go with the feed's retention. */
  async prune(): Promise<number> {
    return pruneAttempts(this.deps.db, this.deps.clock() - this.deps.retentionDays * DAY_MS);
  }
}
