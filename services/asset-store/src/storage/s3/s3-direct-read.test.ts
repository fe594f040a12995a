import { createHash, randomBytes } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Writable, type Readable } from 'node:stream';
import { DeleteBucketCommand, PutObjectCommand } from '@aws-sdk/client-s3';
import { describeS3 } from '@svc/testing';
import { relay } from '../blob-store.js';
import { createS3Client, deleteObjectsUnder, ensureBucket } from './s3-client.js';
import { readSpanDirect } from './s3-direct-read.js';

const MIB = 1 << 20;
/** The read's bound on the gateway's silence mid-body. */
const IDLE_MS = 5_000;
/** An object whose every 4 bytes say where they are: a misplaced byte shows. */
const object = Buffer.alloc(10 * MIB);
for (let i = 0; i < object.length; i += 4) object.writeUInt32BE(i, i);

const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');

async function readAll(stream: Readable): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

type Answer = (req: http.IncomingMessage, res: http.ServerResponse) => void;

/** A stand-in gateway: answers each request with `answer`, remembering what it was asked. */
async function gateway(answer: Answer) {
  const seen: http.IncomingMessage[] = [];
  const server = http.createServer((req, res) => {
    seen.push(req);
    answer(req, res);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const client = clientFor(`http://127.0.0.1:${port}`);
  return {
    seen,
    client,
    port,
    close: () => {
      client.destroy();
      server.closeAllConnections();
      return new Promise((resolve) => server.close(resolve));
    },
  };
}

function clientFor(endpoint: string) {
  return createS3Client({
    bucket: 'b',
    prefix: '',
    endpoint,
    region: 'us-east-1',
    forcePathStyle: true,
    credentials: { accessKeyId: 'k', secretAccessKey: 's' },
  });
}

/** The span the request names, answered as S3 answers it, in 100 KiB writes. */
const partial: Answer = (req, res) => {
  const named = /bytes=(\d+)-(\d+)/.exec(req.headers.range ?? '')!;
  const start = Number(named[1]);
  const end = Number(named[2]);
  res.writeHead(206, {
    'content-length': end - start + 1,
    'content-range': `bytes ${start}-${end}/${object.length}`,
  });
  for (let at = start; at <= end; at += 100 << 10) {
    res.write(object.subarray(at, Math.min(at + (100 << 10), end + 1)));
  }
  res.end();
};

/** A gateway answering `partial`, and when its (one) answer's connection has closed. */
async function partialGateway() {
  let closed!: Promise<void>;
  const g = await gateway((req, res) => {
    closed = new Promise((resolve) => res.on('close', resolve));
    partial(req, res);
  });
  return { g, closed: () => closed };
}

/** A 9 MiB span answered in part: the connection is cut after `bytes`. */
const cutAfter =
  (bytes: number): Answer =>
  (_req, res) => {
    res.writeHead(206, {
      'content-length': 9 * MIB,
      'content-range': `bytes 0-${9 * MIB - 1}/${object.length}`,
    });
    res.write(object.subarray(0, bytes), () => res.destroy());
  };

/** Closes the test's stand-in gateway after it. */
let stop: (() => Promise<unknown>) | undefined;
afterEach(async () => {
  await stop?.();
  stop = undefined;
});

describe('readSpanDirect (a stand-in gateway)', () => {
  it('reads a span of 8 MiB or more with a signed GET of its own, byte for byte', async () => {
    const g = await gateway(partial);
    stop = g.close;
    const body = await readSpanDirect(
      g.client,
      'b',
      'k/x.bin',
      { start: 5, end: 9 * MIB },
      IDLE_MS,
    );
    expect(body).toBeDefined();
    const got = await readAll(body!);
    expect(got.length).toBe(9 * MIB - 4);
    expect(sha256(got)).toBe(sha256(object.subarray(5, 9 * MIB + 1)));
    expect(g.seen).toHaveLength(1);
    const req = g.seen[0]!;
    expect(req.method).toBe('GET');
    expect(req.url).toMatch(/^\/b\/k\/x\.bin\?.*X-Amz-Signature=[0-9a-f]{64}/);
    expect(req.headers).toMatchObject({ range: `bytes=5-${9 * MIB}`, connection: 'close' });
  });

  it('leaves spans under 8 MiB, and reads of no span, to the SDK without a request', async () => {
    const g = await gateway(partial);
    stop = g.close;
    await expect(
      readSpanDirect(g.client, 'b', 'k', { start: 0, end: 8 * MIB - 2 }, IDLE_MS),
    ).resolves.toBe(undefined);
    await expect(readSpanDirect(g.client, 'b', 'k', undefined, IDLE_MS)).resolves.toBe(undefined);
    expect(g.seen).toHaveLength(0);
  });

  it.each<[string, Answer]>([
    [
      '404',
      (_req, res) => res.writeHead(404, { 'content-type': 'application/xml' }).end('<Error/>'),
    ],
    ['503', (_req, res) => res.writeHead(503).end()],
    ['the whole object for a span', (_req, res) => res.writeHead(200).end(object)],
    [
      'another span',
      (_req, res) =>
        res
          .writeHead(206, { 'content-range': `bytes 0-${9 * MIB}/${object.length}` })
          .end(object.subarray(0, 9 * MIB + 1)),
    ],
    ['a chunked body', (_req, res) => res.end(object.subarray(0, 100))],
  ])('hands the read to the SDK when the gateway answers %s', async (_what, answer) => {
    const g = await gateway(answer);
    stop = g.close;
    const range = { start: 1, end: 9 * MIB };
    await expect(readSpanDirect(g.client, 'b', 'k', range, IDLE_MS)).resolves.toBe(undefined);
    expect(g.seen).toHaveLength(1);
  });

  it('hands the read to the SDK when nothing listens, or the endpoint is https', async () => {
    const g = await gateway(partial);
    const { port } = g;
    await g.close();
    const closed = clientFor(`http://127.0.0.1:${port}`);
    const tls = clientFor('https://127.0.0.1:9');
    const range = { start: 0, end: 9 * MIB };
    await expect(readSpanDirect(closed, 'b', 'k', range, IDLE_MS)).resolves.toBe(undefined);
    await expect(readSpanDirect(tls, 'b', 'k', range, IDLE_MS)).resolves.toBe(undefined);
    closed.destroy();
    tls.destroy();
  });

  it('errors the stream when the connection ends before the span does', async () => {
    const g = await gateway(cutAfter(2 * MIB));
    stop = g.close;
    const body = await readSpanDirect(g.client, 'b', 'k', { start: 0, end: 9 * MIB - 1 }, IDLE_MS);
    await expect(readAll(body!)).rejects.toMatchObject({ code: 'ECONNRESET' });
  });

  it('errors the stream when the gateway goes silent midway, not while its reader is slow', async () => {
    const g = await gateway((_req, res) => {
      res.writeHead(206, {
        'content-length': 9 * MIB,
        'content-range': `bytes 0-${9 * MIB - 1}/${object.length}`,
      });
      res.write(object.subarray(0, 3 * MIB));
      // ...and nothing more, the connection held open: a gateway whose data went away.
    });
    stop = g.close;
    const body = await readSpanDirect(g.client, 'b', 'k', { start: 0, end: 9 * MIB - 1 }, 200);
    const { sink } = slowSink(0);
    await expect(relay(body!, sink)).rejects.toMatchObject({ name: 'TimeoutError' });
    expect(sink.destroyed).toBe(true);

    // A reader that holds its first writes 300 ms each: the socket waits for it, quiet, and
    // is not cut.
    const { g: whole } = await partialGateway();
    const previous = stop;
    stop = async () => {
      await previous();
      await whole.close();
    };
    const slow = await readSpanDirect(whole.client, 'b', 'k', { start: 0, end: 9 * MIB - 1 }, 200);
    const taken: Buffer[] = [];
    const slowReader = new Writable({
      highWaterMark: 1,
      write(chunk: Buffer, _encoding, done) {
        taken.push(Buffer.from(chunk));
        setTimeout(done, taken.length <= 3 ? 300 : 0);
      },
    });
    await relay(slow!, slowReader);
    expect(Buffer.concat(taken).equals(object.subarray(0, 9 * MIB))).toBe(true);
  });

  it('holds the socket while its reader does not read, and lets go when the reader does', async () => {
    const { g, closed } = await partialGateway();
    stop = g.close;
    const body = (await readSpanDirect(
      g.client,
      'b',
      'k',
      { start: 0, end: 10 * MIB - 1 },
      IDLE_MS,
    ))!;
    await new Promise((resolve) => setTimeout(resolve, 300));
    // The stream's high-water mark (1 MiB) and one more read at most: the rest waits.
    expect(body.readableLength).toBeLessThanOrEqual(2 * MIB);
    const first = (await body[Symbol.asyncIterator]().next()).value as Buffer;
    expect(first.subarray(0, 8)).toEqual(object.subarray(0, 8));
    body.destroy();
    await closed();
  });
});

/**
 * A sink that takes each write's bytes only when it answers the write, `delayMs` later: a
 * buffer reused before its write is answered shows as wrong bytes.
 */
function slowSink(delayMs: number) {
  const taken: Buffer[] = [];
  const sink = new Writable({
    highWaterMark: 1,
    write(chunk: Buffer, _encoding, done) {
      setTimeout(() => {
        taken.push(Buffer.from(chunk));
        done();
      }, delayMs);
    },
  });
  return { sink, taken };
}

describe('relaying a direct read (the download)', () => {
  it('writes the span into the sink byte for byte, reusing a buffer only once its write is answered', async () => {
    const g = await gateway(partial);
    stop = g.close;
    const body = await readSpanDirect(g.client, 'b', 'k', { start: 3, end: 10 * MIB - 1 }, IDLE_MS);
    const { sink, taken } = slowSink(2);
    await relay(body!, sink);
    const got = Buffer.concat(taken);
    expect(got.length).toBe(10 * MIB - 3);
    expect(sha256(got)).toBe(sha256(object.subarray(3)));
    expect(sink.writableFinished).toBe(true);
  });

  it('stops reading while the sink holds its buffers', async () => {
    const g = await gateway(partial);
    stop = g.close;
    const body = await readSpanDirect(g.client, 'b', 'k', { start: 0, end: 10 * MIB - 1 }, IDLE_MS);
    const stalled = new Writable({
      write(_chunk: Buffer, _encoding, _done) {
        // never answered: every later write waits in the sink's buffer
      },
    });
    void relay(body!, stalled).catch(() => undefined);
    await new Promise((resolve) => setTimeout(resolve, 300));
    // What the stream held before the relay, then at most the relay's four buffers.
    expect(stalled.writableLength).toBeGreaterThan(0);
    expect(stalled.writableLength).toBeLessThanOrEqual(6 * MIB);
    stalled.destroy();
  });

  it('fails the relay and the sink when the connection ends before the span does', async () => {
    const g = await gateway(cutAfter(3 * MIB));
    stop = g.close;
    const body = await readSpanDirect(g.client, 'b', 'k', { start: 0, end: 9 * MIB - 1 }, IDLE_MS);
    const { sink } = slowSink(0);
    await expect(relay(body!, sink)).rejects.toMatchObject({ code: 'ECONNRESET' });
    expect(sink.destroyed).toBe(true);
  });

  it('fails the relay at once when the connection ended before the relay began', async () => {
    const g = await gateway(cutAfter(64 << 10));
    stop = g.close;
    const body = await readSpanDirect(g.client, 'b', 'k', { start: 0, end: 9 * MIB - 1 }, IDLE_MS);
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(body!.destroyed).toBe(true);
    const { sink } = slowSink(0);
    await expect(relay(body!, sink)).rejects.toMatchObject({ code: 'ECONNRESET' });
    expect(sink.destroyed).toBe(true);
  });

  it('lets the connection go when the sink goes first', async () => {
    const { g, closed } = await partialGateway();
    stop = g.close;
    const body = await readSpanDirect(g.client, 'b', 'k', { start: 0, end: 10 * MIB - 1 }, IDLE_MS);
    const { sink } = slowSink(5);
    const relayed = relay(body!, sink);
    setTimeout(() => sink.destroy(), 20);
    await expect(relayed).rejects.toMatchObject({ code: 'ERR_STREAM_PREMATURE_CLOSE' });
    await closed();
  });
});

describeS3('readSpanDirect (a real gateway)', (s3) => {
  const bucket = `direct-read-${randomBytes(6).toString('hex')}`;
  // As test/s3-bucket.ts builds them: src/ does not import from test/.
  const client = createS3Client({
    bucket,
    prefix: '',
    endpoint: s3.endpoint,
    region: s3.region,
    forcePathStyle: s3.forcePathStyle,
    credentials: { accessKeyId: s3.accessKeyId, secretAccessKey: s3.secretAccessKey },
  });
  afterAll(async () => {
    await deleteObjectsUnder(client, bucket, '');
    await client.send(new DeleteBucketCommand({ Bucket: bucket }));
    client.destroy();
  });

  it('reads whole objects and spans byte for byte, signed as the SDK signs', async () => {
    await ensureBucket(client, bucket);
    await client.send(new PutObjectCommand({ Bucket: bucket, Key: 'a/x.bin', Body: object }));
    const whole = await readSpanDirect(
      client,
      bucket,
      'a/x.bin',
      {
        start: 0,
        end: object.length - 1,
      },
      IDLE_MS,
    );
    expect(whole).toBeDefined();
    expect(sha256(await readAll(whole!))).toBe(sha256(object));
    const span = await readSpanDirect(
      client,
      bucket,
      'a/x.bin',
      { start: 7, end: 9 * MIB },
      IDLE_MS,
    );
    expect(span).toBeDefined();
    expect(sha256(await readAll(span!))).toBe(sha256(object.subarray(7, 9 * MIB + 1)));
  });
});
