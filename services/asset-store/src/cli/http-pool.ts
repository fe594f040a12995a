import net from 'node:net';
import {
  abortError,
  bodyLength,
  type Origin,
  type SendBody,
  type Sender,
  type SentAnswer,
} from './http-send.js';

/**
 * Keep-alive HTTP/1.1 over plain sockets, for `http:` stores: at most `connections` sockets,
 * each request written in one write, each answer read whole (Content-Length, chunked, or up
 * to the close). Hand-written because in a fresh process (every CLI run) `node:http`
 * (several times) and undici's `Pool` (about twice) cost more CPU per small request, which
 * on two cores is taken from the store (figures: bench/NOTES.md, "The CLI's HTTP pool");
 * `https:` stores keep `node:https`.
 */
export class HttpPool implements Sender {
  readonly #origin: Origin;
  readonly #hostHeader: string;
  readonly #max: number;
  readonly #idle: Connection[] = [];
  readonly #waiting: ((conn: Connection) => void)[] = [];
  #open = 0;
  #closed = false;

  constructor(origin: Origin, connections: number) {
    this.#origin = origin;
    const host = origin.hostname.includes(':') ? `[${origin.hostname}]` : origin.hostname;
    this.#hostHeader = origin.port === undefined ? host : `${host}:${origin.port}`;
    this.#max = connections;
  }

  /** One request with its body in memory, answered in full. */
  async send(
    method: string,
    path: string,
    headers: Record<string, string>,
    body: SendBody | undefined,
    signal?: AbortSignal,
  ): Promise<SentAnswer> {
    let head = `${method} ${this.#origin.pathPrefix}${path} HTTP/1.1\r\nhost: ${this.#hostHeader}\r\n`;
    for (const name in headers) head += `${name}: ${checkValue(headers[name]!)}\r\n`;
    const chunks =
      typeof body === 'string' ? [Buffer.from(body)] : Buffer.isBuffer(body) ? [body] : body;
    if (chunks !== undefined || method !== 'GET') {
      head += `content-length: ${chunks ? bodyLength(chunks) : 0}\r\n`;
    }
    head += '\r\n';
    const headBytes = Buffer.from(head, 'latin1');
    if (signal?.aborted) throw abortError(signal);
    const conn = await this.#acquire(signal);
    if (signal?.aborted) {
      this.#release(conn);
      throw abortError(signal);
    }
    return new Promise<Answer>((resolve, reject) => {
      const onAbort = signal && (() => conn.socket.destroy(abortError(signal)));
      if (onAbort) signal.addEventListener('abort', onAbort, { once: true });
      conn.current = {
        reader: new AnswerReader(method === 'HEAD'),
        settle: (err, answer) => {
          conn.current = undefined;
          if (onAbort) signal.removeEventListener('abort', onAbort);
          if (err || !answer) reject(err ?? new Error('socket hang up'));
          else resolve(answer);
        },
      };
      conn.socket.ref();
      // Corked: the head and every chunk leave in one writev, none of them copied.
      conn.socket.cork();
      conn.socket.write(headBytes);
      for (const chunk of chunks ?? []) conn.socket.write(chunk);
      conn.socket.uncork();
    }).then(
      (answer) => {
        if (answer.keepAlive) this.#release(conn);
        else conn.socket.destroy();
        return { statusCode: answer.statusCode, text: answer.text };
      },
      (err: unknown) => {
        conn.socket.destroy();
        throw err;
      },
    );
  }

  /** Closes every socket. */
  close(): void {
    this.#closed = true;
    for (const conn of this.#idle.splice(0)) conn.socket.destroy();
  }

  #acquire(signal: AbortSignal | undefined): Promise<Connection> {
    const idle = this.#idle.pop();
    if (idle) return Promise.resolve(idle);
    if (this.#open < this.#max) return Promise.resolve(this.#connect());
    return new Promise((resolve, reject) => {
      const onAbort = () => {
        this.#waiting.splice(this.#waiting.indexOf(take), 1);
        reject(abortError(signal!));
      };
      const take = (conn: Connection) => {
        signal?.removeEventListener('abort', onAbort);
        resolve(conn);
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      this.#waiting.push(take);
    });
  }

  #release(conn: Connection): void {
    const next = this.#waiting.shift();
    if (next) return next(conn);
    if (this.#closed) return void conn.socket.destroy();
    // Idle sockets do not keep the process alive (as node:http's agent does).
    conn.socket.unref();
    this.#idle.push(conn);
  }

  #connect(): Connection {
    this.#open++;
    const socket = net.connect({ host: this.#origin.hostname, port: this.#origin.port ?? 80 });
    socket.setNoDelay(true);
    const conn: Connection = { socket, current: undefined };
    socket.on('data', (chunk: Buffer) => {
      const exchange = conn.current;
      if (!exchange) return void socket.destroy();
      try {
        const answer = exchange.reader.push(chunk);
        if (answer) exchange.settle(undefined, answer);
      } catch (err) {
        exchange.settle(err as Error);
      }
    });
    socket.on('error', (err) => conn.current?.settle(err));
    socket.on('close', () => {
      this.#open--;
      const at = this.#idle.indexOf(conn);
      if (at >= 0) this.#idle.splice(at, 1);
      const exchange = conn.current;
      if (exchange) exchange.settle(undefined, exchange.reader.end());
      // A waiting request gets the room this socket leaves.
      const next = this.#waiting.shift();
      if (next && !this.#closed) next(this.#connect());
    });
    return conn;
  }
}

interface Connection {
  socket: net.Socket;
  current: { reader: AnswerReader; settle(err?: Error, answer?: Answer): void } | undefined;
}

interface Answer extends SentAnswer {
  keepAlive: boolean;
}

/** One answer's bytes as they arrive: the head, then the body by its framing. */
class AnswerReader {
  #buffer: Buffer | undefined;
  #head:
    | {
        statusCode: number;
        length: number | undefined;
        chunked: boolean;
        keepAlive: boolean;
        bodyAt: number;
      }
    | undefined;

  constructor(private readonly headOnly: boolean) {}

  /** The answer once complete, else undefined. */
  push(chunk: Buffer): Answer | undefined {
    this.#buffer = this.#buffer ? Buffer.concat([this.#buffer, chunk]) : chunk;
    while (!this.#head) {
      const end = this.#buffer.indexOf('\r\n\r\n');
      if (end < 0) return undefined;
      const head = parseHead(this.#buffer.toString('latin1', 0, end), end + 4, this.headOnly);
      // An interim answer (100 Continue) is followed by the real one.
      if (head.statusCode >= 100 && head.statusCode < 200)
        this.#buffer = this.#buffer.subarray(end + 4);
      else this.#head = head;
    }
    const { bodyAt, length, chunked } = this.#head;
    const body = this.#buffer.subarray(bodyAt);
    if (chunked) {
      const decoded = decodeChunked(body);
      return decoded && this.#answer(decoded);
    }
    if (length === undefined) return undefined;
    if (body.length > length) throw new Error('the store sent more than its Content-Length');
    return body.length === length ? this.#answer(body) : undefined;
  }

  /** The answer at the socket's close: complete only when its body runs to the close. */
  end(): Answer | undefined {
    const head = this.#head;
    if (!head || head.chunked || head.length !== undefined) return undefined;
    return { ...this.#answer(this.#buffer!.subarray(head.bodyAt)), keepAlive: false };
  }

  #answer(body: Buffer): Answer {
    const head = this.#head!;
    return { statusCode: head.statusCode, text: body.toString(), keepAlive: head.keepAlive };
  }
}

function parseHead(text: string, bodyAt: number, headOnly: boolean) {
  const lines = text.split('\r\n');
  const status = /^HTTP\/1\.([01]) (\d{3})/.exec(lines[0]!);
  if (!status) throw new Error(`not an HTTP answer: ${lines[0]!.slice(0, 100)}`);
  const statusCode = Number(status[2]);
  let length: number | undefined;
  let chunked = false;
  let connection = '';
  for (let i = 1; i < lines.length; i++) {
    const line = lines[i]!;
    const colon = line.indexOf(':');
    const name = line.slice(0, colon).trim().toLowerCase();
    const value = line.slice(colon + 1).trim();
    if (name === 'content-length') length = Number(value);
    else if (name === 'transfer-encoding') chunked = /chunked/i.test(value);
    else if (name === 'connection') connection = value.toLowerCase();
  }
  if (headOnly || statusCode === 204 || statusCode === 304) length = 0;
  const keepAlive =
    status[1] === '1' ? !connection.includes('close') : connection.includes('keep-alive');
  return { statusCode, length: chunked ? undefined : length, chunked, keepAlive, bodyAt };
}

/** A whole chunked body decoded, or undefined while its last chunk has not come. */
function decodeChunked(raw: Buffer): Buffer | undefined {
  const parts: Buffer[] = [];
  let at = 0;
  for (;;) {
    const lineEnd = raw.indexOf('\r\n', at);
    if (lineEnd < 0) return undefined;
    const size = parseInt(raw.toString('latin1', at, lineEnd), 16);
    if (Number.isNaN(size)) throw new Error('a malformed chunked answer');
    if (size === 0) return raw.indexOf('\r\n\r\n', lineEnd) >= 0 ? Buffer.concat(parts) : undefined;
    if (raw.length < lineEnd + 2 + size + 2) return undefined;
    parts.push(raw.subarray(lineEnd + 2, lineEnd + 2 + size));
    at = lineEnd + 2 + size + 2;
  }
}

/** A header value as sent; a line break in one (a pasted token) would split the request. */
function checkValue(value: string): string {
  if (/[\r\n]/.test(value)) throw new TypeError('a header value holds a line break');
  return value;
}
