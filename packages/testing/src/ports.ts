import net from 'node:net';

// Ports for spawned services come from below Linux's ephemeral range (32768-60999): a port
// the kernel hands out for listen(0) is also handed to outgoing connections, so one could be
// taken by a database client between the probe and the child's bind (EADDRINUSE in CI).
const PORT_FLOOR = 12_000;
const PORT_SPAN = 20_000;
let portCursor = (process.pid * 7919) % PORT_SPAN;

function probe(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = net.createServer();
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });
}

/**
 * A TCP port that was free a moment ago on 127.0.0.1, outside the ephemeral range. Each test
 * process walks its own stretch of ports (its start depends on its pid), so two Jest workers
 * rarely probe the same one.
 */
export async function freePort(): Promise<number> {
  for (let tries = 0; tries < 200; tries += 1) {
    portCursor = (portCursor + 1) % PORT_SPAN;
    const port = PORT_FLOOR + portCursor;
    if (await probe(port)) return port;
  }
  throw new Error('no free port below the ephemeral range after 200 tries');
}

/** Resolves with the connection error code when nothing accepts on the port, else `connected`. */
export function tryConnect(port: number): Promise<string> {
  return new Promise((resolve) => {
    const socket = net.connect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      resolve('connected');
    });
    socket.once('error', (e: NodeJS.ErrnoException) => resolve(e.code ?? e.message));
  });
}
