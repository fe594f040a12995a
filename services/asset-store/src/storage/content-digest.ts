import { Worker } from 'node:worker_threads';

/**
 * The plain SHA-256 of a large upload's content, computed on a worker thread while the
 * main thread hashes the asset hash and writes: the two hashes of one upload then run on
 * two cores. Hand-written because it is a few lines over `node:worker_threads`; a pool
 * library would add a queue the single shared worker does not need.
 */
export interface ContentDigest {
  /** Feeds `chunk`; resolves at once unless the worker is BATCH_LIMIT behind. */
  update(chunk: Buffer): Promise<void> | undefined;
  /** The digest in lowercase hex; the digest is spent afterwards. */
  digest(): Promise<string>;
  /** Forgets the content (an upload that failed). */
  drop(): void;
}

/** Chunks are copied into batches this big: one message per batch, not per 64 KiB chunk. */
const BATCH_BYTES = 1 << 20;
/** Batches the worker may be behind before `update` waits: bounds the memory held. */
const BATCH_LIMIT = 8;

// Plain JavaScript, evaluated: the worker needs no module resolution (tsx, Jest, dist alike).
const WORKER_SOURCE = `
const { parentPort } = require('node:worker_threads');
const { createHash } = require('node:crypto');
const hashes = new Map();
parentPort.on('message', (m) => {
  if (m.op === 'update') {
    let hash = hashes.get(m.id);
    if (!hash) hashes.set(m.id, (hash = createHash('sha256')));
    hash.update(new Uint8Array(m.bytes));
    parentPort.postMessage({ id: m.id, op: 'ack' });
  } else if (m.op === 'digest') {
    const hash = hashes.get(m.id) ?? createHash('sha256');
    hashes.delete(m.id);
    parentPort.postMessage({ id: m.id, op: 'digest', hex: hash.digest('hex') });
  } else {
    hashes.delete(m.id);
  }
});`;

interface Pending {
  acked: () => void;
  digested: (hex: string) => void;
}

let worker: Worker | undefined;
const pending = new Map<number, Pending>();
let nextId = 1;

function sharedWorker(): Worker {
  if (worker) return worker;
  const w = new Worker(WORKER_SOURCE, { eval: true });
  // Never keeps the process alive: an idle worker holds nothing.
  w.unref();
  w.on('message', (m: { id: number; op: 'ack' | 'digest'; hex?: string }) => {
    const p = pending.get(m.id);
    if (m.op === 'ack') p?.acked();
    else p?.digested(m.hex!);
  });
  w.on('error', () => {
    // A worker that died takes its hashes with it: later uploads get a new one, and the
    // uploads in flight fail on their digest instead of hanging.
    worker = undefined;
    for (const p of pending.values()) p.digested('');
  });
  worker = w;
  return w;
}

/** A content digest fed on the shared worker thread. */
export function offThreadDigest(): ContentDigest {
  const id = nextId++;
  const w = sharedWorker();
  let batch = Buffer.allocUnsafeSlow(BATCH_BYTES);
  let filled = 0;
  let behind = 0;
  let wake: (() => void) | undefined;
  let result: ((hex: string) => void) | undefined;
  pending.set(id, {
    acked: () => {
      behind--;
      wake?.();
    },
    digested: (hex) => result?.(hex),
  });
  const send = (): void => {
    if (filled === 0) return;
    // A full batch owns its whole ArrayBuffer (allocUnsafeSlow) and moves without a copy.
    const bytes = filled === BATCH_BYTES ? batch.buffer : batch.buffer.slice(0, filled);
    w.postMessage({ id, op: 'update', bytes }, [bytes]);
    behind++;
    filled = 0;
  };
  return {
    update(chunk) {
      for (let offset = 0; offset < chunk.length;) {
        const n = chunk.copy(batch, filled, offset);
        filled += n;
        offset += n;
        if (filled === BATCH_BYTES) {
          // The full batch was transferred with its bytes: the next one needs a buffer.
          send();
          batch = Buffer.allocUnsafeSlow(BATCH_BYTES);
        }
      }
      if (behind < BATCH_LIMIT) return undefined;
      return new Promise<void>((resolve) => {
        wake = () => {
          if (behind < BATCH_LIMIT) {
            wake = undefined;
            resolve();
          }
        };
      });
    },
    async digest() {
      send();
      const hex = await new Promise<string>((resolve) => {
        result = resolve;
        w.postMessage({ id, op: 'digest' });
      });
      pending.delete(id);
      if (!hex) throw new Error('the content digest worker stopped');
      return hex;
    },
    drop() {
      pending.delete(id);
      w.postMessage({ id, op: 'drop' });
    },
  };
}
