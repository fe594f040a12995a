// A handle-relay instance for bench:relay, run as a child process so its CPU and heap are
// its own. Answers IPC: 'heap' (heap used after a full GC), 'stop'.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { startBenchRelay } from './bench-relay.js';

async function main(): Promise<void> {
  const { app, relay, close } = await startBenchRelay();
  const server = http.createServer(app).listen(0, '127.0.0.1', () => {
    process.send?.({ port: (server.address() as AddressInfo).port });
  });
  process.on('message', (msg) => {
    if (msg === 'heap') {
      (globalThis as { gc?: () => void }).gc?.();
      process.send?.({ heap: process.memoryUsage().heapUsed, streams: relay.streams.size });
    }
    if (msg === 'stop') {
      void relay.closeStreams().then(() => {
        server.closeAllConnections();
        server.close(() => {
          void close().then(() => process.exit(0));
        });
      });
    }
  });
}

void main();
