import type { IncomingMessage, ServerResponse } from 'node:http';
import { assetStoreError, jsonLane, type ClientAddress, type Metrics } from '@svc/envelope';
import type { Logger } from 'pino';
import { API_BASE } from '../api-base.js';
import { fromDatabaseError } from '../db/pg-errors.js';
import type { IngestHandler } from './ingest.handler.js';

const INGEST_PATH = `${API_BASE}/ingest`;

/** What the lane shares with the app: the same handler, log lines and metrics. */
export interface IngestLaneDeps {
  ingestUpload: IngestHandler;
  logger: Logger;
  metrics: Metrics;
  clientAddress: ClientAddress;
  /** Whether the request may ingest (`api_token`); one it may not goes on to Express's 401. */
  allows: (req: IncomingMessage) => boolean;
}

/**
 * `POST /api/v1/can/0/ingest`, spelled exactly so and without a query string, answered
 * ahead of Express: for a small file, Express's own per-request work is a sizeable share of
 * the ingest's CPU (bench/NOTES.md). The same handler as the Express route, which still
 * answers every other spelling (letter case, a trailing slash, a query). Answers whether it
 * took the request.
 */
export function ingestLane(
  deps: IngestLaneDeps,
): (req: IncomingMessage, res: ServerResponse) => boolean {
  return jsonLane({
    takes: (req) => req.method === 'POST' && req.url === INGEST_PATH && deps.allows(req),
    route: INGEST_PATH,
    answer: deps.ingestUpload,
    render: assetStoreError,
    translate: fromDatabaseError,
    logger: deps.logger,
    metrics: deps.metrics,
    clientAddress: deps.clientAddress,
  });
}
