import http from 'node:http';
import https from 'node:https';

/** A whole answer: status and body text. */
export interface SentAnswer {
  statusCode: number;
  text: string;
}

/** A keep-alive pool of at most `connections` sockets for this base URL's scheme. */
export function keepAliveAgent(baseUrl: string, connections: number): http.Agent {
  const options = { keepAlive: true, maxSockets: connections, maxFreeSockets: connections };
  return new URL(baseUrl).protocol === 'https:'
    ? new https.Agent(options)
    : new http.Agent(options);
}

/**
 * One request with its body in memory, answered in full, over `node:http` and a keep-alive
 * agent. The upload's hot path uses this rather than undici: in a fresh process (every CLI
 * run) a small request costs less CPU this way, undici's layers and llhttp's WebAssembly
 * being cold for a run's first thousand requests (figures: bench/NOTES.md).
 */
export function send(
  agent: http.Agent,
  url: string,
  options: {
    method: string;
    headers: Record<string, string>;
    body?: string | Buffer;
    signal?: AbortSignal;
  },
): Promise<SentAnswer> {
  const target = new URL(url);
  const headers: Record<string, string | number> = { ...options.headers };
  if (options.body !== undefined) headers['content-length'] = Buffer.byteLength(options.body);
  const request = target.protocol === 'https:' ? https.request : http.request;
  return new Promise((resolve, reject) => {
    const req = request(
      target,
      { method: options.method, headers, agent, signal: options.signal },
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
    req.end(options.body);
  });
}
