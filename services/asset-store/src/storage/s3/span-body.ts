import type { Socket } from 'node:net';
import { Readable, type Writable } from 'node:stream';
import { finished } from 'node:stream/promises';
import type { Relayable } from '../blob-store.js';

/** The socket reads into slabs of this size; a chunk handed on is a view of one. */
export const SLAB_BYTES = 1 << 20;
/** A slab with less room than this left is replaced before the next read. */
const MIN_READ_BYTES = 64 << 10;
/** Buffers a relay reads into and writes from, reused once the sink has taken their bytes. */
const RELAY_BUFFERS = 4;

/**
 * The body of a direct read (`s3-direct-read.ts`): the bytes a socket in `onread` mode reads
 * after the answer's head, up to the span's length. Read as a stream, each chunk is a view
 * of a fresh slab (no copy, one allocation per MiB). Relayed to a sink (`relayTo`, the
 * download), it reads into four buffers it reuses as each write completes, so a large
 * download allocates nothing per chunk and leaves the collector nothing to do (NOTES).
 */
export class SpanBody extends Readable implements Relayable {
  #slab = Buffer.allocUnsafe(SLAB_BYTES);
  #used = 0;
  #pool: Buffer[] | undefined;
  #own = new Set<Buffer>();
  #out: Writable | undefined;
  #paused = false;

  constructor(
    private readonly socket: Socket,
    private remaining: number,
    /** A gateway silent this long while the body is read fails the read; 0: no bound. */
    private readonly idleMs = 0,
  ) {
    super({ highWaterMark: SLAB_BYTES });
    // A failure before the reader attaches stays on the stream (`errored`) for the reader
    // or the relay to meet; it must not surface as an uncaught 'error' event meanwhile.
    this.on('error', () => undefined);
    // Armed only while reading: paused for a slow reader, the socket's quiet is ours.
    socket.setTimeout(idleMs, () => {
      socket.destroy(
        Object.assign(new Error(`S3 sent nothing for ${idleMs} ms mid-object`), {
          name: 'TimeoutError',
        }),
      );
    });
  }

  /** The buffer the socket reads into next (its `onread.buffer`). */
  nextBuffer(): Buffer {
    const pooled = this.#pool?.pop();
    if (pooled) return pooled;
    if (SLAB_BYTES - this.#used < MIN_READ_BYTES) {
      this.#slab = Buffer.allocUnsafe(SLAB_BYTES);
      this.#used = 0;
    }
    return this.#slab.subarray(this.#used);
  }

  /** Takes `chunk` (read into `buffer`); false pauses the socket. */
  received(chunk: Buffer, buffer: Buffer): boolean {
    if (!this.#own.has(buffer) && buffer.buffer === this.#slab.buffer) this.#used += chunk.length;
    const part = chunk.length > this.remaining ? chunk.subarray(0, this.remaining) : chunk;
    this.remaining -= part.length;
    let more: boolean;
    if (this.#out) {
      const release = this.#own.has(buffer) ? () => this.#release(buffer) : undefined;
      if (part.length > 0) this.#out.write(part, release);
      else release?.();
      // One buffer stays for the socket's next read; the others may be in the sink's hands.
      more = this.#pool!.length > 1;
    } else {
      more = part.length === 0 || this.push(part);
    }
    if (this.remaining > 0) {
      this.#paused = !more;
      if (this.#paused) this.socket.setTimeout(0);
      return more;
    }
    this.socket.destroy();
    if (this.#out) this.#out.end();
    else this.push(null);
    return false;
  }

  /** The socket closed or failed: an error unless the whole span came. */
  socketClosed(err?: Error): void {
    if (this.remaining === 0) return;
    const failure =
      err ??
      Object.assign(new Error('S3 closed the connection mid-object'), { code: 'ECONNRESET' });
    if (this.#out) this.#out.destroy(failure);
    else this.destroy(failure);
  }

  /** Writes the rest of the span to `out`, then ends it; rejects as `pipeline` would. */
  relayTo(out: Writable): Promise<void> {
    if (this.destroyed) {
      // The connection failed between the answer's head and the relay.
      const failure = this.errored ?? new Error('the S3 read ended before it was relayed');
      const settled = finished(out); // listening first: the sink's 'error' is then handled
      out.destroy(failure);
      return settled;
    }
    for (let chunk = this.read() as Buffer | null; chunk; chunk = this.read() as Buffer | null) {
      out.write(chunk);
    }
    this.#out = out;
    this.#pool = Array.from({ length: RELAY_BUFFERS }, () => Buffer.allocUnsafe(SLAB_BYTES));
    for (const buffer of this.#pool) this.#own.add(buffer);
    if (this.remaining === 0) out.end();
    else this.#resume();
    return finished(out).finally(() => {
      this.socket.destroy();
      this.destroy();
    });
  }

  override _read(): void {
    this.#resume();
  }

  override _destroy(err: Error | null, done: (err?: Error | null) => void): void {
    this.socket.destroy();
    done(err);
  }

  #release(buffer: Buffer): void {
    this.#pool!.push(buffer);
    this.#resume();
  }

  #resume(): void {
    if (!this.#paused || this.socket.destroyed) return;
    this.#paused = false;
    this.socket.setTimeout(this.idleMs);
    this.socket.resume();
  }
}
