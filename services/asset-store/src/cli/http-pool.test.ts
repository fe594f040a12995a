import http from 'node:http';
import net from 'node:net';
import { HttpPool } from './http-pool.js';
import { nodeHttpSender, parseOrigin } from './http-send.js';

/** A server on a free port; `close` ends it and every connection it holds. */
async function listen(
  server: net.Server,
): Promise<{ pool: (n?: number) => HttpPool; close: () => Promise<void> }> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  const pools: HttpPool[] = [];
  return {
    pool: (n = 2) => {
      const pool = new HttpPool(parseOrigin(`http://127.0.0.1:${port}/base`), n);
      pools.push(pool);
      return pool;
    },
    close: async () => {
      for (const p of pools) p.close();
      if (server instanceof http.Server) server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

/** A server that answers every request with these raw bytes (then maybe closes). */
function rawServer(answer: string, closeAfter = false): net.Server {
  return net.createServer((socket) => {
    socket.once('data', () => {
      socket.write(answer);
      if (closeAfter) socket.end();
    });
  });
}

describe('HttpPool', () => {
  it('sends method, path, headers and body as written, and reuses at most its connections', async () => {
    const seen: {
      method?: string;
      url?: string;
      type?: string;
      body: string;
      socket: net.Socket;
    }[] = [];
    const server = http.createServer((req, res) => {
      let body = '';
      req.setEncoding('utf8').on('data', (c: string) => (body += c));
      req.on('end', () => {
        seen.push({
          method: req.method,
          url: req.url,
          type: req.headers['content-type'],
          body,
          socket: req.socket,
        });
        res.setHeader('content-type', 'application/json');
        res.end(JSON.stringify({ got: body.length }));
      });
    });
    const { pool, close } = await listen(server);
    try {
      const p = pool(2);
      const answers = await Promise.all(
        Array.from({ length: 6 }, (_, i) =>
          p.send(
            'POST',
            `/x?i=${i}`,
            { 'content-type': 'text/plain' },
            Buffer.from('a'.repeat(i * 1000)),
          ),
        ),
      );
      expect(answers.map((a) => [a.statusCode, JSON.parse(a.text) as unknown])).toEqual(
        [0, 1, 2, 3, 4, 5].map((i) => [200, { got: i * 1000 }]),
      );
      expect(seen.map((s) => [s.method, s.url, s.type]).sort()).toEqual(
        [0, 1, 2, 3, 4, 5].map((i) => ['POST', `/base/x?i=${i}`, 'text/plain']),
      );
      expect(new Set(seen.map((s) => s.socket)).size).toBe(2);
      const got = await p.send('GET', '/y', {}, undefined);
      expect(got.statusCode).toBe(200);
    } finally {
      await close();
    }
  });

  it.each([
    ['HttpPool', (origin: string) => new HttpPool(parseOrigin(origin), 2)],
    ['node:http', (origin: string) => nodeHttpSender(parseOrigin(origin), 2)],
  ])(
    '%s sends a body of several chunks byte for byte, with their total length',
    async (_, make) => {
      const received: { length?: string; body: Buffer }[] = [];
      const server = http.createServer((req, res) => {
        const parts: Buffer[] = [];
        req.on('data', (c: Buffer) => parts.push(c));
        req.on('end', () => {
          received.push({ length: req.headers['content-length'], body: Buffer.concat(parts) });
          res.end('{}');
        });
      });
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      const { port } = server.address() as net.AddressInfo;
      const sender = make(`http://127.0.0.1:${port}`);
      try {
        const chunks = [
          Buffer.from('head ü\r\n'),
          Buffer.alloc(70_000, 9),
          Buffer.from('\r\ntail'),
        ];
        await sender.send('POST', '/chunks', {}, chunks);
        await sender.send('POST', '/chunks', {}, []);
        // 9 + 70,000 + 6 bytes ('ü' is two in UTF-8); compared whole, not byte by byte by Jest.
        expect(received.map((r) => [r.length, r.body.length])).toEqual([
          ['70015', 70_015],
          ['0', 0],
        ]);
        expect(received[0]!.body.equals(Buffer.concat(chunks))).toBe(true);
      } finally {
        sender.close();
        server.closeAllConnections();
        await new Promise((resolve) => server.close(resolve));
      }
    },
  );

  it('reads a chunked answer, and one whose body runs to the close', async () => {
    const chunked = await listen(
      rawServer(
        'HTTP/1.1 404 Not Found\r\ntransfer-encoding: chunked\r\n\r\n3\r\nabc\r\n4\r\ndefg\r\n0\r\n\r\n',
      ),
    );
    const toClose = await listen(
      rawServer('HTTP/1.1 200 OK\r\nconnection: close\r\n\r\nall of it', true),
    );
    try {
      expect(await chunked.pool().send('GET', '/', {}, undefined)).toEqual({
        statusCode: 404,
        text: 'abcdefg',
      });
      expect(await toClose.pool().send('GET', '/', {}, undefined)).toEqual({
        statusCode: 200,
        text: 'all of it',
      });
    } finally {
      await chunked.close();
      await toClose.close();
    }
  });

  it('fails a request whose connection closes before the whole answer, and one refused', async () => {
    const cut = await listen(rawServer('HTTP/1.1 200 OK\r\ncontent-length: 10\r\n\r\nabc', true));
    try {
      await expect(cut.pool().send('GET', '/', {}, undefined)).rejects.toThrow('socket hang up');
    } finally {
      await cut.close();
    }
    const refused = new HttpPool(parseOrigin('http://127.0.0.1:1'), 1);
    await expect(refused.send('GET', '/', {}, undefined)).rejects.toMatchObject({
      code: 'ECONNREFUSED',
    });
  });

  it('gives up a request in flight, and one waiting for a connection, when its signal aborts', async () => {
    // Reads what comes and never answers.
    const silent = await listen(net.createServer((socket) => socket.resume()));
    try {
      const p = silent.pool(1);
      const abort = new AbortController();
      const inFlight = p.send('POST', '/', {}, 'x', abort.signal);
      const waiting = p.send('POST', '/', {}, 'y', abort.signal);
      await new Promise((r) => setTimeout(r, 50));
      abort.abort();
      await expect(inFlight).rejects.toMatchObject({ name: 'AbortError' });
      await expect(waiting).rejects.toMatchObject({ name: 'AbortError' });
    } finally {
      await silent.close();
    }
  });

  it('refuses a header value holding a line break rather than split the request', async () => {
    const p = new HttpPool(parseOrigin('http://127.0.0.1:1'), 1);
    await expect(
      p.send('GET', '/', { authorization: 'Bearer a\r\nx: y' }, undefined),
    ).rejects.toThrow('line break');
  });
});
