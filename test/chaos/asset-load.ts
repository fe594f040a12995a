import { createHash, randomBytes, randomInt } from 'node:crypto';
import * as tus from 'tus-js-client';
import type { Instance } from './cluster.js';
import { between, call, pick, sleep, type Tally } from './http.js';

export const API = '/api/v1/can/0';

/** An ingest the store acknowledged, and what was sent. */
export interface AckedIngest {
  kind: 'file' | 'large' | 'data' | 'tus';
  hash: string;
  timestamp: number;
  /** The content's SHA-256 (file, large, tus); a data ingest keeps `data`. */
  sha256?: string;
  data?: unknown;
  sentAt: number;
  ackAt: number;
}

/** What an asset's record must say after its last acknowledged change. */
export interface ExpectedMeta {
  tags: string[];
  description: string | undefined;
  is_trashed: boolean;
}

const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');

/**
 * Bytes of large ingests and tus uploads the run sends at most. The Ceph gateway of CI and of
 * this machine keeps its objects in memory (memstore, 2 GiB) and frees deleted ones only at
 * its garbage collection (2 h later): a run must leave room for the next ones and for other
 * test runs. Past it only small ingests go on.
 */
const LARGE_BYTES_BUDGET = 160 << 20;

/**
 * The asset half of the client load: ingests (files, a few past one 5 MiB part, JSON data),
 * PATCH/trash/restore of acknowledged assets, and tus uploads, each against a random
 * instance. Every acknowledged write is recorded with what it promised, for the checker.
 */
export class AssetLoad {
  readonly acked: AckedIngest[] = [];
  /** By hash: the record expected once the last change to it was acknowledged. */
  readonly expected = new Map<string, ExpectedMeta>();
  /** Assets a change was sent to that never got an answer: their record is not checked. */
  readonly uncertain = new Set<string>();
  private running = true;
  private readonly workers: Promise<void>[] = [];
  private seq = 0;
  /** Bytes of large ingests and tus uploads sent so far (`LARGE_BYTES_BUDGET`). */
  largeBytes = 0;

  constructor(
    private readonly stores: readonly Instance[],
    private readonly tally: Tally,
  ) {}

  start(ingestWorkers: number): void {
    for (let i = 0; i < ingestWorkers; i++) this.workers.push(this.loop(() => this.ingest()));
    this.workers.push(this.loop(() => this.change()));
    this.workers.push(this.loop(() => this.tusUpload(), [1_000, 2_000]));
  }

  /** Lets each worker finish what it is doing, then resolves. */
  async stop(): Promise<void> {
    this.running = false;
    await Promise.all(this.workers);
  }

  private async loop(step: () => Promise<void>, pauseMs: [number, number] = [50, 250]) {
    while (this.running) {
      await step().catch(() => undefined);
      await sleep(between(...pauseMs));
    }
  }

  private async ingest(): Promise<void> {
    const roll = randomInt(100);
    const large = roll < 2 && this.largeBytes < LARGE_BYTES_BUDGET;
    const kind = large ? 'large' : roll < 22 ? 'data' : 'file';
    const store = pick(this.stores);
    const n = ++this.seq;
    let init: RequestInit;
    let content: Buffer | undefined;
    const data = { chaos: n, at: Date.now(), words: randomBytes(8).toString('hex') };
    if (kind === 'data') {
      init = {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify({ data, tags: 'chaos' }),
      };
    } else {
      // A large one is past one 5 MiB part: a multipart upload staged under `.tmp/`.
      content = randomBytes(large ? (5 << 20) + randomInt(512 << 10) : between(1, 16 << 10));
      if (large) this.largeBytes += content.length;
      const form = new FormData();
      form.append('tags', 'chaos');
      form.append('file', new Blob([content]), `c${n}.bin`);
      init = { method: 'POST', body: form };
    }
    const sentAt = Date.now();
    const path = kind === 'data' ? `${API}/ingest/data` : `${API}/ingest`;
    const answer = await call(`${store.base}${path}`, init).catch(() => undefined);
    if (answer?.status !== 200) {
      this.tally.refused(`ingest ${kind}`, answer);
      return;
    }
    const { hash, timestamp } = (answer.body as { data: { hash: string; timestamp: number } }).data;
    this.acked.push({
      kind,
      hash,
      timestamp,
      ...(content ? { sha256: sha256(content) } : { data }),
      sentAt,
      ackAt: Date.now(),
    });
    this.expected.set(hash, { tags: ['chaos'], description: undefined, is_trashed: false });
    this.tally.add(`ingest ${kind}`, 'acked');
  }

  /** A PATCH, trash or restore of an acknowledged asset, sent again until it is answered 200. */
  private async change(): Promise<void> {
    const candidates = this.acked.filter((a) => !this.uncertain.has(a.hash) && a.kind !== 'tus');
    if (candidates.length === 0) return;
    const { hash } = pick(candidates);
    const before = this.expected.get(hash)!;
    const roll = randomInt(3);
    const n = ++this.seq;
    const op =
      roll === 0
        ? {
            kind: 'patch',
            init: {
              method: 'PATCH',
              headers: { 'Content-Type': 'application/json' },
              body: JSON.stringify({ tags: [`t${n}`], description: `d${n}` }),
            },
            path: `${API}/asset/${hash}`,
            after: { ...before, tags: [`t${n}`], description: `d${n}` },
          }
        : roll === 1
          ? {
              kind: 'trash',
              init: { method: 'DELETE' },
              path: `${API}/asset/${hash}`,
              after: { ...before, is_trashed: true },
            }
          : {
              kind: 'restore',
              init: { method: 'POST' },
              path: `${API}/asset/${hash}/restore`,
              after: { ...before, is_trashed: false },
            };
    this.uncertain.add(hash);
    for (let attempt = 0; attempt < 30; attempt++) {
      const answer = await call(`${pick(this.stores).base}${op.path}`, op.init).catch(
        () => undefined,
      );
      if (answer?.status === 200) {
        this.expected.set(hash, op.after);
        this.uncertain.delete(hash);
        this.tally.add(op.kind, attempt === 0 ? 'acked' : 'acked after retries');
        return;
      }
      this.tally.refused(op.kind, answer);
      await sleep(500);
    }
  }

  /** One tus upload to one instance, resumed through its faults by tus-js-client's retries. */
  private async tusUpload(): Promise<void> {
    if (this.largeBytes >= LARGE_BYTES_BUDGET) return;
    const store = pick(this.stores);
    const content = randomBytes(between(128 << 10, 1 << 20));
    this.largeBytes += content.length;
    const sentAt = Date.now();
    const done = await tusOnce(store.base, content).catch(() => undefined);
    if (!done) {
      this.tally.add('tus upload', 'failed');
      return;
    }
    this.acked.push({ kind: 'tus', ...done, sha256: sha256(content), sentAt, ackAt: Date.now() });
    this.expected.set(done.hash, { tags: [], description: undefined, is_trashed: false });
    this.tally.add('tus upload', done.finishedByRetry ? 'acked (last PATCH sent again)' : 'acked');
  }
}

/**
 * Uploads `content` with tus-js-client (256 KiB PATCHes, retried for about a minute). When
 * the upload ends without `Asset-Hash` (its completion failed, say while the index was away),
 * the last PATCH is sent again, no bytes at the end offset, until it names the asset.
 */
function tusOnce(
  base: string,
  content: Buffer,
): Promise<{ hash: string; timestamp: number; finishedByRetry: boolean }> {
  return new Promise((resolve, reject) => {
    const upload = new tus.Upload(content, {
      endpoint: `${base}${API}/uploads`,
      metadata: { filename: 'chaos.bin' },
      chunkSize: 256 << 10,
      retryDelays: [
        250, 500, 1000, 2000, 3000, 5000, 5000, 5000, 5000, 5000, 5000, 5000, 5000, 5000,
      ],
      onError: reject,
      onSuccess: ({ lastResponse }) => {
        const hash = lastResponse.getHeader('Asset-Hash');
        const timestamp = Number(lastResponse.getHeader('Asset-Timestamp'));
        if (hash) {
          resolve({ hash, timestamp, finishedByRetry: false });
          return;
        }
        finishAgain(upload.url ?? '', content.length).then(
          (asset) => resolve({ ...asset, finishedByRetry: true }),
          reject,
        );
      },
    });
    upload.start();
  });
}

async function finishAgain(
  url: string,
  length: number,
): Promise<{ hash: string; timestamp: number }> {
  for (let attempt = 0; attempt < 60; attempt++) {
    const answer = await call(url, {
      method: 'PATCH',
      headers: {
        'Tus-Resumable': '1.0.0',
        'Upload-Offset': String(length),
        'Content-Type': 'application/offset+octet-stream',
      },
      body: new Uint8Array(0),
    }).catch(() => undefined);
    const hash = answer?.headers.get('asset-hash');
    if (answer?.status === 204 && hash) {
      return { hash, timestamp: Number(answer.headers.get('asset-timestamp')) };
    }
    await sleep(1_000);
  }
  throw new Error('the upload never became an asset');
}
