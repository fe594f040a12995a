import type { IncomingMessage, ServerResponse } from 'node:http';
import type { RequestHandler } from 'express';
import { pino, type Logger } from 'pino';
import pretty from 'pino-pretty';
import { collectDefaultMetrics, Histogram, Registry } from 'prom-client';

/**
 * The service's logger: JSON lines on stdout, or, when stdout is a terminal, the same
 * records made readable by pino-pretty (a person watching `pnpm start`, not a collector).
 * `silent` in tests keeps output clean.
 */
export function createLogger(
  name: string,
  level = process.env.LOG_LEVEL ?? 'info',
  format: 'auto' | 'json' | 'pretty' = 'auto',
): Logger {
  const readable = format === 'pretty' || (format === 'auto' && process.stdout.isTTY === true);
  if (!readable) return pino({ name, level });
  // In this thread and synchronous, so the last lines before an exit are not lost.
  const stream = pretty({
    colorize: true,
    sync: true,
    translateTime: 'SYS:HH:MM:ss.l',
    ignore: 'pid,hostname',
    // One line a record: `pnpm start` prefixes each line with the service's name.
    singleLine: true,
  });
  return pino({ name, level }, stream);
}

/** The Prometheus side of one app: its own registry, so several apps can live in one process. */
export interface Metrics {
  registry: Registry;
  middleware: RequestHandler;
  handler: RequestHandler;
  /** Times one request answered ahead of Express, under a fixed route pattern. */
  track(req: IncomingMessage, res: ServerResponse, route: string): void;
}

/** Default process metrics plus a request-duration histogram labelled by route pattern. */
export function createMetrics(prefix: string): Metrics {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry, prefix: `${prefix}_` });
  const duration = new Histogram({
    name: `${prefix}_http_request_duration_seconds`,
    help: 'HTTP request duration by method, route pattern and status',
    labelNames: ['method', 'route', 'status'],
    buckets: [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 10],
    registers: [registry],
  });
  // One listener and one observe per request; prom-client's startTimer adds two closures
  // and a label merge on top. The route is read at the end, once routing has set it.
  const observe = (req: IncomingMessage, res: ServerResponse, routeOf: () => string): void => {
    const startedAt = performance.now();
    res.once('finish', () => {
      const labels = { method: req.method ?? '', route: routeOf(), status: String(res.statusCode) };
      duration.observe(labels, (performance.now() - startedAt) / 1000);
    });
  };
  const middleware: RequestHandler = (req, res, next) => {
    observe(req, res, () => {
      const route = (req.route as { path?: string } | undefined)?.path;
      return route ? `${req.baseUrl}${route}` : 'unmatched';
    });
    next();
  };
  const track = (req: IncomingMessage, res: ServerResponse, route: string): void =>
    observe(req, res, () => route);
  const handler: RequestHandler = async (_req, res) => {
    res.setHeader('Content-Type', registry.contentType);
    res.send(await registry.metrics());
  };
  return { registry, middleware, handler, track };
}
