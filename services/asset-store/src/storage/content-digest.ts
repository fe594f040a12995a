import { types } from 'node:util';
import { Worker } from 'node:worker_threads';

/**
 * The plain SHA-256 of a large upload's content, computed on a worker thread while the
 * main thread hashes the asset hash and writes: the two hashes of one upload then run on
 * two cores. Hand-written because it is a few lines over `node:worker_threads`; a pool
 * library would add a queue the single shared worker does not need.
 */
export interface ContentDigest {
  /** Feeds `chunk` (copied: the caller may reuse it); waits while the worker is SLOTS behind. */
  update(chunk: Buffer): Promise<void>;
  /**
   * Feeds `view`, a view over shared memory, without copying it: the worker reads it in
   * place, so the caller leaves it unchanged until the promise resolves.
   */
  updateShared(view: Buffer): Promise<void>;
  /** The digest in lowercase hex; the digest is spent afterwards. */
  digest(): Promise<string>;
  /** Forgets the content (an upload that failed). */
  drop(): void;
}

/**
 * Chunks are copied into slots of shared memory this big, and the worker hashes a full slot
 * in place: one small message per slot, no buffer allocated or moved per batch.
 */
const SLOT_BYTES = 1 << 20;
/** Slots per upload: how far the worker may be behind before `update` waits. */
const SLOTS = 4;

// Plain JavaScript, evaluated: the worker needs no module resolution (tsx, Jest, dist alike).
const WORKER_SOURCE = `
const { parentPort } = require('node:worker_threads');
const { createHash } = require('node:crypto');
const hashes = new Map();
parentPort.on('message', (m) => {
  if (m.op === 'update') {
    let hash = hashes.get(m.id);
    if (!hash) hashes.set(m.id, (hash = createHash('sha256')));
    hash.update(new Uint8Array(m.memory, m.offset, m.length));
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
  /** One answer per update, in the order they were sent. */
  acks: (() => void)[];
  digested: (hex: string) => void;
}

let worker: Worker | undefined;
const pending = new Map<number, Pending>();
let nextId = 1;
/** Slot memory of finished uploads, kept for the next ones, up to this many. */
const spareMemory: SharedArrayBuffer[] = [];
const SPARE_LIMIT = 4;

function sharedWorker(): Worker {
  if (worker) return worker;
  const w = new Worker(WORKER_SOURCE, { eval: true });
  // Never keeps the process alive: an idle worker holds nothing.
  w.unref();
  w.on('message', (m: { id: number; op: 'ack' | 'digest'; hex?: string }) => {
    const p = pending.get(m.id);
    if (m.op === 'ack') p?.acks.shift()?.();
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

/**
 * Starts the shared worker now rather than at the first large upload: its thread and heap
 * (about 10 MB) are then the process's from the start, not a surprise in the middle of an
 * ingest, and the first upload does not wait for it.
 */
export function startDigestWorker(): void {
  sharedWorker();
}

/** A content digest fed on the shared worker thread. */
export function offThreadDigest(): ContentDigest {
  const id = nextId++;
  const w = sharedWorker();
  // Taken at the first copied update: an upload fed only shared views needs no slots.
  let memory: SharedArrayBuffer | undefined;
  let slots: Buffer | undefined;
  // Slots are filled and hashed in turn: `sent` counts slots handed over, `acked` those the
  // worker is done with, so slot `sent % SLOTS` is free while sent - acked < SLOTS.
  let sent = 0;
  let acked = 0;
  let filled = 0;
  let stopped = false;
  let wake: (() => void) | undefined;
  let result: ((hex: string) => void) | undefined;
  const entry: Pending = {
    acks: [],
    digested: (hex) => {
      // '' when the worker died: a waiting update must not hang; the digest then fails.
      if (!hex) {
        stopped = true;
        for (const ack of entry.acks.splice(0)) ack();
      }
      wake?.();
      result?.(hex);
    },
  };
  pending.set(id, entry);
  const slotAcked = (): void => {
    acked++;
    wake?.();
  };
  const send = (): void => {
    if (filled === 0) return;
    const offset = (sent % SLOTS) * SLOT_BYTES;
    entry.acks.push(slotAcked);
    w.postMessage({ id, op: 'update', memory, offset, length: filled });
    sent++;
    filled = 0;
  };
  const slotFree = (): Promise<void> | undefined => {
    if (stopped || sent - acked < SLOTS) return undefined;
    return new Promise<void>((resolve) => {
      wake = () => {
        if (stopped || sent - acked < SLOTS) {
          wake = undefined;
          resolve();
        }
      };
    });
  };
  return {
    async update(chunk) {
      memory ??= spareMemory.pop() ?? new SharedArrayBuffer(SLOT_BYTES * SLOTS);
      const bytes = (slots ??= Buffer.from(memory));
      for (let offset = 0; offset < chunk.length;) {
        await slotFree();
        const start = (sent % SLOTS) * SLOT_BYTES + filled;
        const n = chunk.copy(bytes, start, offset, offset + SLOT_BYTES - filled);
        filled += n;
        offset += n;
        if (filled === SLOT_BYTES) send();
      }
    },
    async updateShared(view) {
      if (!types.isSharedArrayBuffer(view.buffer)) {
        throw new TypeError('updateShared takes a view over a SharedArrayBuffer');
      }
      // What was copied before goes first (the worker hashes in the order it is sent), and
      // synchronously, so concurrent calls keep their order.
      send();
      if (stopped) return;
      await new Promise<void>((resolve) => {
        entry.acks.push(resolve);
        w.postMessage({
          id,
          op: 'update',
          memory: view.buffer,
          offset: view.byteOffset,
          length: view.length,
        });
      });
    },
    async digest() {
      await slotFree();
      if (stopped) throw new Error('the content digest worker stopped');
      send();
      const hex = await new Promise<string>((resolve) => {
        result = resolve;
        w.postMessage({ id, op: 'digest' });
      });
      pending.delete(id);
      if (!hex) throw new Error('the content digest worker stopped');
      // The worker answers in order: every slot was read before the digest came back.
      if (memory && spareMemory.length < SPARE_LIMIT) spareMemory.push(memory);
      return hex;
    },
    drop() {
      pending.delete(id);
      // No answer comes for a dropped digest: nothing may wait for one.
      for (const ack of entry.acks.splice(0)) ack();
      w.postMessage({ id, op: 'drop' });
    },
  };
}
