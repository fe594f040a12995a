import net from 'node:net';

/** A raw HTTP/1.1 client connection, for requests a normal client cannot send slowly. */
export interface RawConnection {
  write: (text: string) => Promise<void>;
  /** Resolves with the next `count` complete responses' text (status line onwards). */
  readResponses: (count: number) => Promise<string[]>;
  /** Resolves when the server has closed the connection. */
  closed: Promise<void>;
  destroy: () => void;
}

/** Opens a raw connection to 127.0.0.1:`port`. */
export async function rawConnection(port: number): Promise<RawConnection> {
  const socket = net.connect(port, '127.0.0.1');
  await new Promise<void>((resolve, reject) => {
    socket.once('connect', resolve);
    socket.once('error', reject);
  });
  let buffer = '';
  let notify: (() => void) | undefined;
  socket.setEncoding('utf8');
  socket.on('data', (chunk: string) => {
    buffer += chunk;
    notify?.();
  });
  const closed = new Promise<void>((resolve) => socket.once('close', () => resolve()));
  socket.on('error', () => undefined);
  void closed.then(() => notify?.());

  /** Takes one whole response (Content-Length framed) off the buffer, if it is there. */
  const take = (): string | undefined => {
    const end = buffer.indexOf('\r\n\r\n');
    if (end === -1) return undefined;
    const length = /\r\ncontent-length:\s*(\d+)/i.exec(buffer.slice(0, end));
    const total = end + 4 + Number(length?.[1] ?? 0);
    if (buffer.length < total) return undefined;
    const response = buffer.slice(0, total);
    buffer = buffer.slice(total);
    return response;
  };

  return {
    write: (text) =>
      new Promise<void>((resolve, reject) =>
        socket.write(text, (e) => (e ? reject(e) : resolve())),
      ),
    readResponses: async (count) => {
      const responses: string[] = [];
      while (responses.length < count) {
        const next = take();
        if (next !== undefined) {
          responses.push(next);
          continue;
        }
        if (socket.destroyed || socket.readableEnded) {
          throw new Error(`connection closed after ${responses.length} of ${count} responses`);
        }
        await new Promise<void>((resolve) => (notify = resolve));
      }
      return responses;
    },
    closed,
    destroy: () => socket.destroy(),
  };
}

/**
 * A request that is never finished: `head` (which must declare a longer body than it sends)
 * and `bodyStart`, then nothing more. It stays in flight until the server goes away, so a
 * kill always lands in the middle of it, whatever the timing of the load around it.
 * `cutOff` resolves true when the connection ended without an answer.
 */
export async function unfinishedRequest(
  port: number,
  head: string,
  bodyStart: string,
): Promise<{ cutOff: Promise<boolean> }> {
  const connection = await rawConnection(port);
  const answered = connection.readResponses(1).then(
    () => true,
    () => false,
  );
  await connection.write(head + bodyStart);
  return { cutOff: connection.closed.then(() => answered).then((a) => !a) };
}
