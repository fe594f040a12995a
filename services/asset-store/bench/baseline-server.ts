import { randomBytes } from 'node:crypto';
import fs from 'node:fs/promises';
import http from 'node:http';
import path from 'node:path';
import { createAssetHash } from '../src/storage/content-hash.js';

/**
 * The ingest baseline: a bare node:http server that streams the raw request body to a
 * temporary file through the same hash, fsyncs it, renames it into place and fsyncs the
 * folder. No parsing, no metadata, no index: the floor the service is measured against.
 */
const [root = '/tmp/asset-bench-baseline', portArg = '0'] = process.argv.slice(2);
const tmp = path.join(root, '.tmp');
await fs.mkdir(tmp, { recursive: true });
let last = 0;

const server = http.createServer((req, res) => {
  const now = Date.now();
  const timestamp = (last = now > last ? now : last + 1);
  const hash = createAssetHash(timestamp);
  const temp = path.join(tmp, `${timestamp}-${randomBytes(6).toString('hex')}`);
  const store = async () => {
    const handle = await fs.open(temp, 'wx');
    // Not pipeline(req, …): an IncomingMessage only closes once the response is sent.
    for await (const chunk of req) {
      hash.update(chunk as Buffer);
      await handle.write(chunk as Buffer);
    }
    await handle.sync();
    await handle.close();
    const digest = hash.digest('hex');
    const final = path.join(root, `${timestamp}_${digest}.bin`);
    await fs.rename(temp, final);
    const dir = await fs.open(root, 'r');
    await dir.sync();
    await dir.close();
    return digest;
  };
  store().then(
    (digest) => {
      res.setHeader('Content-Type', 'application/json');
      res.end(JSON.stringify({ status: 'success', data: { timestamp, hash: digest } }));
    },
    (err: unknown) => {
      res.statusCode = 500;
      res.end(String(err));
    },
  );
});
server.listen(Number(portArg), '127.0.0.1', () => {
  const address = server.address();
  process.stdout.write(
    `${JSON.stringify({ port: typeof address === 'object' ? address?.port : 0 })}\n`,
  );
});
process.on('SIGTERM', () => server.close(() => process.exit(0)));
