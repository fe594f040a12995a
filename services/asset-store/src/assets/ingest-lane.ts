import type { IncomingMessage, ServerResponse } from 'node:http';
import {
  assetStoreError,
  startRequestLine,
  success,
  writeError,
  writeJson,
  type Metrics,
} from '@svc/envelope';
import type { Logger } from 'pino';
import { API_BASE } from '../api-base.js';
import type { MultipartIngest } from './asset.routes.js';

const INGEST_PATH = `${API_BASE}/ingest`;

/** What the lane shares with the app: the same parser and service, log lines and metrics. */
export interface IngestLaneDeps {
  ingestMultipart: MultipartIngest;
  logger: Logger;
  metrics: Metrics;
}

async function answerIngest(deps: IngestLaneDeps, req: IncomingMessage, res: ServerResponse) {
  try {
    writeJson(res, 200, success(await deps.ingestMultipart(req, res)));
  } catch (err) {
    writeError(res, err, assetStoreError, deps.logger);
  }
}

/**
 * `POST /api/v1/can/0/ingest`, spelled exactly so and without a query string, answered
 * ahead of Express: for a small file, Express's own per-request work (prototype swaps, the
 * router's layer walk) cost a sizeable share of the ingest's CPU on the benchmark machine
 * (README, "Benchmarks"). The same multer parser, storage engine, service, error envelope,
 * request log line and metrics as the Express route, which still answers every other
 * spelling (letter case, a trailing slash, a query). Answers whether it took the request;
 * when not, the caller hands it to Express.
 */
export function ingestLane(
  deps: IngestLaneDeps,
): (req: IncomingMessage, res: ServerResponse) => boolean {
  return (req, res) => {
    if (req.method !== 'POST' || req.url !== INGEST_PATH) return false;
    startRequestLine(deps.logger, req, res);
    deps.metrics.track(req, res, INGEST_PATH);
    void answerIngest(deps, req, res);
    return true;
  };
}
