import { Readable } from 'node:stream';

/** Chunks a stream may hold for the reader before it is paused. */
const QUEUE_CHUNKS = 16;

/**
 * The chunks of `source` as it emits them, with backpressure. Why not `for await` on the
 * stream: its iterator reads with `read()`, which joins whatever is buffered into a new
 * buffer, so a large upload is copied once more and leaves as many bytes of garbage, which
 * V8 answers with a full collection every few tens of MB (bench/NOTES.md, "Staging a
 * large upload"). Iterables that are not streams are returned as they are. Leaving the loop
 * early destroys the stream, as `for await` does.
 */
export function streamChunks(
  source: AsyncIterable<Buffer> | Iterable<Buffer>,
): AsyncIterable<Buffer> | Iterable<Buffer> {
  return source instanceof Readable ? emitted(source) : source;
}

async function* emitted(stream: Readable): AsyncGenerator<Buffer> {
  const queue: Buffer[] = [];
  let ended = false;
  let failure: Error | undefined;
  let wake: (() => void) | undefined;
  const onData = (chunk: Buffer): void => {
    queue.push(chunk);
    if (queue.length >= QUEUE_CHUNKS) stream.pause();
    wake?.();
  };
  const onEnd = (): void => {
    ended = true;
    wake?.();
  };
  const onError = (err: Error): void => {
    failure ??= err;
    wake?.();
  };
  const onClose = (): void => {
    // A stream destroyed without an error (the client went away) never ends.
    if (!ended)
      failure ??= Object.assign(new Error('Premature close'), {
        code: 'ERR_STREAM_PREMATURE_CLOSE',
      });
    wake?.();
  };
  stream.on('data', onData).on('end', onEnd).on('error', onError).on('close', onClose);
  try {
    for (;;) {
      const chunk = queue.shift();
      if (chunk !== undefined) {
        if (queue.length === 0 && stream.isPaused()) stream.resume();
        yield chunk;
        continue;
      }
      if (failure) throw failure;
      if (ended) return;
      if (stream.isPaused()) stream.resume();
      await new Promise<void>((resolve) => (wake = resolve));
      wake = undefined;
    }
  } finally {
    stream.off('data', onData).off('end', onEnd).off('error', onError).off('close', onClose);
    // Whatever the stream says after the reader left is of no use, and unheard would crash.
    stream.on('error', () => undefined);
    if (!ended) stream.destroy();
  }
}
