// A child of bench:relay that holds idle streams open over raw sockets, so the bench's own
// process stays light: 100,000 streams are 100,000 sockets on each side. Source addresses
// are spread over 127.0.0.2-127.0.0.x, 4,000 per address.
// IPC: { open: HolderRequest } → { opened, ms } | { error }; 'close'.
import { createPrivateKey, sign, type KeyObject } from 'node:crypto';
import net from 'node:net';
import { performance } from 'node:perf_hooks';

/** What to open: `count` streams on 127.0.0.1:`port`, round-robin over the handles. */
export interface HolderRequest {
  port: number;
  count: number;
  /** Handles with their Ed25519 private keys (PKCS#8 DER, base64). */
  ids: { handle: string; key: string }[];
}

/**
 * Streams per source address: far under its ephemeral ports. A socket bound to a source
 * address takes its port by `bind`, which searches the address's ports in use: with 18,900
 * streams on one address the last ones opened at about 58 a second.
 */
const PER_ADDRESS = 4_000;
const PARALLEL = 200;

const sockets: net.Socket[] = [];

function authValue(handle: string, key: KeyObject): string {
  const ts = Math.floor(Date.now() / 1000);
  const lines = ['GET', `/v1/inbox/${handle}/stream`, String(ts)].join('\n');
  return `${ts}:${sign(null, Buffer.from(lines), key).toString('hex')}`;
}

/** Opens one stream; resolves once the relay answered 200 (rejects on anything else). */
function openOne(port: number, localAddress: string, handle: string, key: KeyObject) {
  return new Promise<void>((resolve, reject) => {
    const socket = net.connect({ port, host: '127.0.0.1', localAddress });
    const auth = encodeURIComponent(authValue(handle, key));
    socket.once('connect', () => {
      socket.write(
        `GET /v1/inbox/${handle}/stream?auth=${auth} HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n`,
      );
    });
    socket.once('data', (chunk: Buffer) => {
      if (!chunk.subarray(0, 12).toString('latin1').startsWith('HTTP/1.1 200')) {
        socket.destroy();
        reject(new Error(`stream open answered ${chunk.subarray(0, 12).toString('latin1')}`));
        return;
      }
      // Pings and any frame are read and dropped: an idle client that keeps up.
      socket.on('data', () => undefined);
      resolve();
    });
    socket.once('error', reject);
    sockets.push(socket);
  });
}

async function open(req: HolderRequest): Promise<number> {
  const keys = req.ids.map((id) => ({
    handle: id.handle,
    key: createPrivateKey({ key: Buffer.from(id.key, 'base64'), format: 'der', type: 'pkcs8' }),
  }));
  const started = performance.now();
  let next = 0;
  await Promise.all(
    Array.from({ length: PARALLEL }, async () => {
      while (next < req.count) {
        const i = next++;
        const id = keys[i % keys.length]!;
        await openOne(req.port, `127.0.0.${2 + Math.floor(i / PER_ADDRESS)}`, id.handle, id.key);
      }
    }),
  );
  return performance.now() - started;
}

process.on('message', (msg) => {
  if (msg === 'close') {
    for (const s of sockets) s.destroy();
    process.exit(0);
  }
  const req = (msg as { open?: HolderRequest }).open;
  if (req) {
    open(req).then(
      (ms) => process.send?.({ opened: req.count, ms }),
      (err: Error) => process.send?.({ error: err.message }),
    );
  }
});
