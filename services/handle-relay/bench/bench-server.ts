// A server for the identity benchmark, run as a child process so its CPU time is its own.
// Mode `app`: the real handle-relay app. Mode `express-verify`: the baseline, a bare
// Express 5 route that parses JSON, builds the JCS bytes and verifies one Ed25519 signature.
import { createPublicKey, verify } from 'node:crypto';
import http, { type RequestListener } from 'node:http';
import type { AddressInfo } from 'node:net';
import express, { type Express } from 'express';
import { canonicalize } from 'json-canonicalize';
import { startBenchRelay } from './bench-relay.js';

function expressVerifyApp(): Express {
  const app = express();
  app.post('/verify', express.json(), (req, res) => {
    const body = req.body as { payload: unknown; signature: { key: string; sig: string } };
    // JWK: the cheapest way node:crypto imports a raw Ed25519 public key.
    const x = Buffer.from(body.signature.key.slice(8), 'hex').toString('base64url');
    const key = createPublicKey({ key: { kty: 'OKP', crv: 'Ed25519', x }, format: 'jwk' });
    const ok = verify(
      null,
      Buffer.from(canonicalize(body.payload)),
      key,
      Buffer.from(body.signature.sig, 'hex'),
    );
    res.status(ok ? 200 : 400).json({ ok });
  });
  return app;
}

async function main(): Promise<void> {
  const mode = process.argv[2];
  let app: RequestListener;
  let close = (): Promise<void> => Promise.resolve();
  if (mode === 'express-verify') {
    app = expressVerifyApp();
  } else {
    const bench = await startBenchRelay();
    app = bench.app;
    close = bench.close;
  }
  const server = http.createServer(app).listen(0, '127.0.0.1', () => {
    process.send?.({ port: (server.address() as AddressInfo).port });
  });
  process.on('message', (msg) => {
    if (msg === 'cpu') process.send?.({ cpu: process.cpuUsage() });
    if (msg === 'stop') server.close(() => void close().then(() => process.exit(0)));
  });
}

void main();
