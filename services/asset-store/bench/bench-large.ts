import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import { Readable } from 'node:stream';
import { request } from 'undici';
import { GIB } from './bench-kit.js';

/** What the ingest and tus benches share for the 1 GiB uploads: the file, its upload, RSS. */

/** Samples a process's resident set every 20 ms (Linux /proc). */
export class RssSampler {
  peak = 0;
  #timer: NodeJS.Timeout | undefined;
  constructor(private readonly pid: number) {}
  now(): number {
    const status = fs.readFileSync(`/proc/${this.pid}/status`, 'utf8');
    return Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0) * 1024;
  }
  start(): number {
    const base = this.now();
    this.peak = base;
    this.#timer = setInterval(() => {
      try {
        this.peak = Math.max(this.peak, this.now());
      } catch {
        // The process is gone (a failed round stopped it): the round's own error is the one to report.
        clearInterval(this.#timer);
      }
    }, 20);
    this.#timer.unref();
    return base;
  }
  stop(): number {
    clearInterval(this.#timer);
    return Math.max(this.peak, this.now());
  }
}

/** A file of `bytes` (1 GiB by default) of random blocks, each numbered so no two are alike. */
export function makeLargeFile(file: string, bytes = GIB): void {
  const block = randomBytes(16 << 20);
  const fd = fs.openSync(file, 'w');
  for (let written = 0; written < bytes; written += block.length) {
    block.writeUInt32BE(written >>> 0, 0);
    fs.writeSync(fd, block, 0, Math.min(block.length, bytes - written));
  }
  fs.closeSync(fd);
}

/**
 * The same client path as the baseline (one file stream, 1 MiB reads, known length), with
 * the multipart framing around it, so the comparison measures the servers.
 */
export async function uploadLargeToService(port: number, file: string): Promise<number> {
  return (await ingestLarge(port, file)).ms;
}

/** `uploadLargeToService`, also giving the new asset's hash. */
export async function ingestLarge(
  port: number,
  file: string,
): Promise<{ ms: number; hash: string }> {
  const boundary = `bench-${randomBytes(8).toString('hex')}`;
  const head = Buffer.from(
    `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="large.bin"\r\n` +
      'Content-Type: application/octet-stream\r\n\r\n',
  );
  const tail = Buffer.from(`\r\n--${boundary}--\r\n`);
  async function* body() {
    yield head;
    yield* fs.createReadStream(file, { highWaterMark: 1 << 20 });
    yield tail;
  }
  const started = performance.now();
  const res = await request(`http://127.0.0.1:${port}/api/v1/can/0/ingest`, {
    method: 'POST',
    body: Readable.from(body()),
    headers: {
      'content-type': `multipart/form-data; boundary=${boundary}`,
      'content-length': String(head.length + fs.statSync(file).size + tail.length),
    },
  });
  const text = await res.body.text();
  const ms = performance.now() - started;
  if (res.statusCode !== 200) throw new Error(`service ingest: ${res.statusCode} ${text}`);
  return { ms, hash: (JSON.parse(text) as { data: { hash: string } }).data.hash };
}

/** A whole download, read and dropped as it arrives: its time, size and response headers. */
export async function downloadFromService(
  port: number,
  hash: string,
): Promise<{ ms: number; bytes: number; headers: Record<string, unknown> }> {
  const started = performance.now();
  const res = await request(`http://127.0.0.1:${port}/api/v1/can/0/asset/${hash}`);
  let bytes = 0;
  for await (const chunk of res.body) bytes += (chunk as Buffer).length;
  const ms = performance.now() - started;
  if (res.statusCode !== 200) throw new Error(`service download: ${res.statusCode}`);
  return { ms, bytes, headers: res.headers };
}

/** Purges an asset (`DELETE /admin/asset/{hash}`), so long runs do not fill the storage. */
export async function purgeFromService(
  port: number,
  hash: string,
  adminToken: string,
): Promise<void> {
  const res = await request(`http://127.0.0.1:${port}/api/v1/can/0/admin/asset/${hash}`, {
    method: 'DELETE',
    headers: { authorization: `Bearer ${adminToken}` },
  });
  const text = await res.body.text();
  if (res.statusCode !== 200) throw new Error(`service purge: ${res.statusCode} ${text}`);
}
