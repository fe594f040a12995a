import http from 'node:http';
import https from 'node:https';

/** A whole answer: status and body text. */
export interface SentAnswer {
  statusCode: number;
  text: string;
}

/** The parts of a base URL every request needs, parsed once per client rather than per request. */
export interface Origin {
  https: boolean;
  /** Without IPv6 brackets, as `http.request` takes it. */
  hostname: string;
  port: number | undefined;
  /** The base URL's own path (without a trailing `/`), put before every request's path. */
  pathPrefix: string;
}

/** Parses a base URL such as `http://127.0.0.1:8080` or `https://host/store/`. */
export function parseOrigin(baseUrl: string): Origin {
  const url = new URL(baseUrl);
  return {
    https: url.protocol === 'https:',
    hostname: url.hostname.replace(/^\[(.*)\]$/, '$1'),
    port: url.port ? Number(url.port) : undefined,
    pathPrefix: url.pathname.replace(/\/+$/, ''),
  };
}

/**
 * A request body in memory: text, bytes, or byte chunks sent one after the other (a
 * multipart body around a file's bytes, which are then never copied into one buffer).
 */
export type SendBody = string | Buffer | readonly Buffer[];

/** Its length in bytes, for `content-length`. */
export function bodyLength(body: SendBody): number {
  if (typeof body === 'string') return Buffer.byteLength(body);
  if (Buffer.isBuffer(body)) return body.length;
  let length = 0;
  for (const chunk of body as readonly Buffer[]) length += chunk.length;
  return length;
}

/** Sends whole requests to one origin over at most a set number of kept-alive connections. */
export interface Sender {
  /** One request with its body in memory, answered in full; `path` is below the origin's prefix. */
  send(
    method: string,
    path: string,
    headers: Record<string, string>,
    body: SendBody | undefined,
    signal?: AbortSignal,
  ): Promise<SentAnswer>;
  /** Closes the kept connections. */
  close(): void;
}

/** A `node:http(s)` sender over a keep-alive agent of at most `connections` sockets. */
export function nodeHttpSender(origin: Origin, connections: number): Sender {
  const options = { keepAlive: true, maxSockets: connections, maxFreeSockets: connections };
  const agent = origin.https ? new https.Agent(options) : new http.Agent(options);
  return {
    send: (method, path, headers, body, signal) =>
      send(agent, origin, path, { method, headers, body, signal }),
    close: () => agent.destroy(),
  };
}

/**
 * One request with its body in memory, answered in full, over `node:http(s)` and a
 * keep-alive agent. Used rather than undici: in a fresh process (every CLI run) a small
 * request costs less CPU this way, undici's layers and llhttp's WebAssembly being cold for
 * a run's first thousand requests (figures: bench/NOTES.md).
 */
function send(
  agent: http.Agent,
  origin: Origin,
  path: string,
  options: {
    method: string;
    headers: Record<string, string>;
    body?: SendBody;
    signal?: AbortSignal;
  },
): Promise<SentAnswer> {
  const { body, signal } = options;
  const headers: Record<string, string | number> = { ...options.headers };
  if (body !== undefined) headers['content-length'] = bodyLength(body);
  const request = origin.https ? https.request : http.request;
  return new Promise((resolve, reject) => {
    const req = request(
      {
        hostname: origin.hostname,
        port: origin.port,
        path: origin.pathPrefix + path,
        method: options.method,
        headers,
        agent,
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.once('error', reject);
        res.once('end', () =>
          resolve({ statusCode: res.statusCode ?? 0, text: Buffer.concat(chunks).toString() }),
        );
      },
    );
    req.once('error', reject);
    if (signal) abortWith(signal, req);
    if (Array.isArray(body)) {
      for (const chunk of body as readonly Buffer[]) req.write(chunk);
      req.end();
    } else {
      req.end(body);
    }
  });
}

const inFlight = new WeakMap<AbortSignal, Set<http.ClientRequest>>();

/**
 * Cancels `req` when `signal` aborts. One listener per signal for all its requests, where
 * `http.request`'s own `signal` option attaches listeners and stream hooks to each request:
 * a visible share of the client's CPU per small upload in a profile (bench/NOTES.md).
 */
function abortWith(signal: AbortSignal, req: http.ClientRequest): void {
  if (signal.aborted) {
    req.destroy(abortError(signal));
    return;
  }
  let requests = inFlight.get(signal);
  if (!requests) {
    const set = new Set<http.ClientRequest>();
    inFlight.set(signal, set);
    signal.addEventListener(
      'abort',
      () => {
        for (const r of set) r.destroy(abortError(signal));
        set.clear();
      },
      { once: true },
    );
    requests = set;
  }
  requests.add(req);
  const forget = requests;
  req.once('close', () => forget.delete(req));
}

/** The error an aborted request rejects with (as `http.request`'s `signal` option has it). */
export function abortError(signal: AbortSignal): Error {
  const err = new Error('The operation was aborted', { cause: signal.reason });
  return Object.assign(err, { name: 'AbortError', code: 'ABORT_ERR' });
}
