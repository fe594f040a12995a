import express, { type Express } from 'express';
import { pino, type Logger } from 'pino';
import request from 'supertest';
import { assetStoreError, handleRelayError, success, type ErrorRenderer } from './envelopes.js';
import { AppError, errors, type ErrorTranslator } from './errors.js';
import { errorHandler, methodNotAllowed, notFound } from './middleware.js';
import { requestLogging } from './request-logging.js';

type LogLine = Record<string, unknown> & { level: number; msg?: string; err?: { stack?: string } };

/** A logger whose JSON lines land in an array, so tests can count what was logged. */
function capturingLogger(): { logger: Logger; lines: LogLine[] } {
  const lines: LogLine[] = [];
  const logger = pino(
    { level: 'info' },
    { write: (line: string) => void lines.push(JSON.parse(line) as LogLine) },
  );
  return { logger, lines };
}

/**
 * A service's reading of its database's errors, as each service's `db/pg-errors.ts` gives
 * its error middleware: a unique violation is 409, a full disk 507.
 */
const translate: ErrorTranslator = (err) => {
  const code = (err as { code?: unknown } | null)?.code;
  if (code === '23505') return errors.conflict('already exists');
  if (code === '53100') return errors.insufficientStorage();
  return undefined;
};

/** A tiny app wired the way both services wire theirs. */
function buildApp(render: ErrorRenderer, logger: Logger, withRequestLogging = true): Express {
  const app = express();
  if (withRequestLogging) app.use(requestLogging(logger));
  app
    .route('/things')
    .get((_req, res) => {
      res.json(success(['a']));
    })
    .post(express.json({ limit: 64 }), (req, res) => {
      res.status(201).json(success(req.body as unknown));
    })
    .all(methodNotAllowed(['GET', 'POST']));
  app.get('/things/:id', (req, res) => {
    res.json(success(req.params.id));
  });
  app.get('/boom', () => {
    throw new Error('secret detail: select * from users where password = $1');
  });
  app.get('/boom-async', async () => {
    await Promise.resolve();
    throw Object.assign(new Error('relation "users" does not exist'), { code: '42P01' });
  });
  app.get('/limited', () => {
    throw errors.tooManyRequests(7);
  });
  app.get('/taken', () => {
    throw Object.assign(new Error('duplicate key value violates unique constraint "k"'), {
      code: '23505',
      constraint: 'k',
    });
  });
  app.get('/half-sent', (_req, res) => {
    res.writeHead(200, { 'Content-Type': 'text/plain' });
    res.write('partial');
    throw new Error('failed mid-stream');
  });
  app.use(notFound);
  app.use(errorHandler(render, logger, translate));
  return app;
}

/** Lets the response's 'finish'/'close' listeners (request logging) run. */
const settle = () => new Promise((resolve) => setImmediate(resolve));

describe.each([
  {
    service: 'asset-store',
    render: assetStoreError,
    body: (_code: string, message: string) => ({ status: 'error', error: message }),
  },
  {
    service: 'handle-relay',
    render: handleRelayError,
    body: (code: string, message: string) => ({ error: { code, message } }),
  },
])('the $service error envelope', ({ render, body }) => {
  let app: Express;
  let lines: LogLine[];
  beforeEach(() => {
    const captured = capturingLogger();
    lines = captured.lines;
    app = buildApp(render, captured.logger);
  });

  it('answers an unknown route with 404', async () => {
    const res = await request(app).get('/nowhere').expect(404);
    expect(res.body).toEqual(body('not_found', 'no such route'));
    expect(res.headers['content-type']).toMatch(/^application\/json/);
  });

  it('answers a wrong method on a known path with 405 and an Allow header', async () => {
    const res = await request(app).put('/things').send({}).expect(405);
    expect(res.body).toEqual(body('method_not_allowed', 'method not allowed'));
    expect(res.headers.allow).toBe('GET, POST');
  });

  it('answers a path parameter with broken percent-encoding with 400, not 500', async () => {
    const res = await request(app).get('/things/%E0%A4%A').expect(400);
    expect(res.body).toEqual(body('bad_request', 'malformed percent-encoding in the path'));
    await settle();
    expect(lines.filter((l) => l.err)).toEqual([]);
  });

  it('answers a malformed JSON body with 400', async () => {
    const res = await request(app)
      .post('/things')
      .set('Content-Type', 'application/json')
      .send('{"a":')
      .expect(400);
    expect(res.body).toEqual(body('bad_request', 'malformed JSON body'));
  });

  it('answers a body over the parser limit with 413', async () => {
    const res = await request(app)
      .post('/things')
      .send({ text: 'x'.repeat(100) })
      .expect(413);
    expect(res.body).toEqual(body('payload_too_large', 'request body too large'));
  });

  it('still accepts a body within the limit', async () => {
    const res = await request(app).post('/things').send({ a: 1 }).expect(201);
    expect(res.body).toEqual({ status: 'success', data: { a: 1 } });
  });

  it('answers a thrown Error with a bare 500 that carries no stack or SQL', async () => {
    const res = await request(app).get('/boom').expect(500);
    expect(res.body).toEqual(body('internal', 'internal error'));
    expect(res.text).not.toMatch(/secret|select|users|at .*\.ts/);
  });

  it('answers a rejected promise with a bare 500 too', async () => {
    const res = await request(app).get('/boom-async').expect(500);
    expect(res.body).toEqual(body('internal', 'internal error'));
    expect(res.text).not.toContain('relation');
  });

  it('logs an unexpected error once, with its stack, on the request line', async () => {
    await request(app).get('/boom').set('X-Request-Id', 'req-500');
    await settle();
    const withError = lines.filter((l) => l.err);
    expect(withError).toHaveLength(1);
    expect(withError[0]?.err?.stack).toContain('secret detail');
    expect(withError[0]).toMatchObject({ level: 50, req: { id: 'req-500', url: '/boom' } });
    expect(lines).toHaveLength(1);
  });

  it('logs a client error as one warning line without an error object', async () => {
    await request(app).get('/nowhere');
    await settle();
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({ level: 40, res: { statusCode: 404 } });
    expect(lines[0]?.err).toBeUndefined();
  });

  it("sends an AppError's extra headers", async () => {
    const res = await request(app).get('/limited').expect(429);
    expect(res.body).toEqual(body('rate_limited', 'too many requests'));
    expect(res.headers['retry-after']).toBe('7');
  });

  it('turns a unique violation from the database into 409', async () => {
    const res = await request(app).get('/taken').expect(409);
    expect(res.body).toEqual(body('conflict', 'already exists'));
  });

  it('cuts the connection instead of appending an envelope to a response already begun', async () => {
    await expect(request(app).get('/half-sent')).rejects.toThrow();
  });
});

describe('error handler without request logging', () => {
  it('logs an unexpected error itself, once', async () => {
    const { logger, lines } = capturingLogger();
    const app = buildApp(handleRelayError, logger, false);
    const res = await request(app).get('/boom').expect(500);
    expect(res.body).toEqual({ error: { code: 'internal', message: 'internal error' } });
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({ level: 50, msg: 'unhandled error' });
    expect(lines[0]?.err?.stack).toContain('secret detail');
  });
});

describe('a full disk', () => {
  it.each([
    ['the file system', { code: 'ENOSPC', errno: -28, syscall: 'write' }],
    ['a quota', { code: 'EDQUOT', errno: -122, syscall: 'write' }],
    ['the database', { code: '53100', severity: 'ERROR' }],
  ])('reported by %s is answered 507 and logged with its cause', async (_by, fields) => {
    const { logger, lines } = capturingLogger();
    const app = express();
    app.post('/store', () => {
      throw Object.assign(new Error('no space left on device'), fields);
    });
    app.use(errorHandler(assetStoreError, logger, translate));
    const res = await request(app).post('/store').expect(507);
    expect(res.body).toEqual({
      status: 'error',
      error: 'insufficient storage: the server is out of disk space',
    });
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({
      level: 50,
      msg: 'unhandled error',
      err: { code: fields.code },
    });
  });
});

describe('errors raised by Express helpers', () => {
  it('keeps their client status and gives it a matching code', async () => {
    const app = express();
    app.get('/file', () => {
      throw Object.assign(new Error('Range Not Satisfiable'), { status: 416, expose: true });
    });
    app.use(errorHandler(handleRelayError, pino({ level: 'silent' })));
    const res = await request(app).get('/file').expect(416);
    expect(res.body).toEqual({
      error: { code: 'range_not_satisfiable', message: 'Range Not Satisfiable' },
    });
  });

  it('treats a server-side status from a helper as unexpected', async () => {
    const app = express();
    app.get('/x', () => {
      throw Object.assign(new Error('disk on fire'), { status: 503, expose: false });
    });
    app.use(errorHandler(assetStoreError, pino({ level: 'silent' })));
    const res = await request(app).get('/x').expect(500);
    expect(res.body).toEqual({ status: 'error', error: 'internal error' });
  });
});

describe('AppError', () => {
  it('carries status, code, message and headers', () => {
    const err = new AppError(418, 'teapot', 'short and stout', { 'X-Kind': 'tea' });
    expect(err).toBeInstanceOf(Error);
    expect(err).toMatchObject({
      status: 418,
      code: 'teapot',
      message: 'short and stout',
      headers: { 'X-Kind': 'tea' },
      name: 'AppError',
    });
  });
});
