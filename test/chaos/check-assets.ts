import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import { ListMultipartUploadsCommand, paginateListObjectsV2, S3Client } from '@aws-sdk/client-s3';
import type { TestS3 } from '@svc/testing';
import { API, type AssetLoad } from './asset-load.js';
import type { Instance } from './cluster.js';
import { call, pick, type Anomaly } from './http.js';

/** An asset's record as list and meta give it. */
export interface AssetRecord {
  hash: string;
  timestamp: number;
  tags: string[];
  description?: string;
  is_trashed: boolean;
  is_corrupted: boolean;
}

/** Every record of the index, oldest first, through the list's time cursor. */
async function listAll(store: Instance): Promise<AssetRecord[]> {
  const all: AssetRecord[] = [];
  let after: number | undefined;
  for (;;) {
    const query = new URLSearchParams({
      limit: '1000',
      order: 'asc',
      include_trashed: 'true',
      include_corrupted: 'true',
      ...(after === undefined ? {} : { offset_time: String(after) }),
    });
    const answer = await call(`${store.base}${API}/list?${query.toString()}`);
    if (answer.status !== 200) throw new Error(`list answered ${answer.status}`);
    const items = (answer.body as { data: { items: AssetRecord[] } }).data.items;
    all.push(...items);
    if (items.length < 1000) return all;
    after = items.at(-1)!.timestamp;
  }
}

/** The S3 client of the checker, straight to the gateway (no proxy). */
export function checkerS3(s3: TestS3): S3Client {
  return new S3Client({
    endpoint: s3.endpoint,
    region: s3.region,
    forcePathStyle: s3.forcePathStyle,
    credentials: { accessKeyId: s3.accessKeyId, secretAccessKey: s3.secretAccessKey },
  });
}

/** The bucket's asset objects (by hash), staged objects and open multipart uploads. */
export async function bucketState(client: S3Client, bucket: string) {
  const keys: string[] = [];
  for await (const page of paginateListObjectsV2({ client }, { Bucket: bucket })) {
    for (const o of page.Contents ?? []) if (o.Key) keys.push(o.Key);
  }
  const uploads = await client.send(new ListMultipartUploadsCommand({ Bucket: bucket }));
  return {
    // A physical name is `<timestamp>_<hash>[_tags].<ext>`.
    assets: keys.filter((k) => !k.startsWith('.')).map((k) => k.split('_')[1]!.split('.')[0]!),
    staged: keys.filter((k) => k.startsWith('.tmp/')),
    uploads: (uploads.Uploads ?? []).map((u) => u.Key ?? ''),
  };
}

/** Runs `work` on each item, `width` at a time. */
async function eachLimited<T>(items: T[], width: number, work: (item: T) => Promise<void>) {
  let next = 0;
  await Promise.all(
    Array.from({ length: width }, async () => {
      while (next < items.length) await work(items[next++]!);
    }),
  );
}

/**
 * Reads every asset back and reports what broke a promise: an acknowledged ingest missing
 * or changed, a content that does not match its hash, timestamps not unique or not
 * increasing in real-time order, a record other than its last acknowledged change made
 * it, an index row without its object or an object without its row, and what is left in
 * the bucket's `.tmp/`, its multipart uploads and the instances' local `.tmp/`.
 */
export async function checkAssets(
  stores: readonly Instance[],
  load: AssetLoad,
  s3: TestS3,
  bucket: string,
): Promise<{
  anomalies: Anomaly[];
  figures: Record<string, number>;
  records: Map<string, AssetRecord>;
}> {
  const anomalies: Anomaly[] = [];
  const found = (kind: string, detail: string) => anomalies.push({ kind, detail });
  const records = await listAll(stores[0]!);
  const byHash = new Map(records.map((r) => [r.hash, r]));

  const seen = new Map<number, string>();
  for (const r of records) {
    const other = seen.get(r.timestamp);
    if (other) found('timestamp not unique', `${r.timestamp}: ${other} and ${r.hash}`);
    seen.set(r.timestamp, r.hash);
    if (r.is_corrupted) found('asset flagged corrupted', r.hash);
  }

  for (const a of load.acked) {
    const r = byHash.get(a.hash);
    if (!r) found('acknowledged ingest lost', `${a.kind} ${a.hash}`);
    else if (r.timestamp !== a.timestamp) {
      found(
        'acknowledged ingest altered',
        `${a.hash}: timestamp ${r.timestamp}, acknowledged ${a.timestamp}`,
      );
    }
  }

  // An ingest acknowledged before another was sent has the smaller timestamp.
  const plain = load.acked.filter((a) => a.kind !== 'tus');
  const byAck = [...plain].sort((x, y) => x.ackAt - y.ackAt);
  let i = 0;
  let latest: (typeof plain)[number] | undefined;
  for (const b of [...plain].sort((x, y) => x.sentAt - y.sentAt)) {
    for (; i < byAck.length && byAck[i]!.ackAt < b.sentAt; i++) {
      if (!latest || byAck[i]!.timestamp > latest.timestamp) latest = byAck[i];
    }
    if (latest && b.timestamp <= latest.timestamp) {
      found(
        'timestamps not increasing',
        `${b.hash} (${b.timestamp}) sent after ${latest.hash} (${latest.timestamp}) was acknowledged`,
      );
    }
  }

  const acked = new Map(load.acked.map((a) => [a.hash, a]));
  await eachLimited(records, 4, async (r) => {
    const res = await fetch(`${pick(stores).base}${API}/asset/${r.hash}`, {
      signal: AbortSignal.timeout(60_000),
    });
    const bytes = Buffer.from(await res.arrayBuffer());
    if (res.status !== 200) {
      found('asset unreadable', `${r.hash}: ${res.status}`);
      return;
    }
    const prefix = Buffer.alloc(8);
    prefix.writeBigUInt64BE(BigInt(r.timestamp));
    const hash = createHash('sha256').update(prefix).update(bytes).digest('hex');
    if (hash !== r.hash) found('content does not match its hash', r.hash);
    const a = acked.get(r.hash);
    if (a?.sha256 && createHash('sha256').update(bytes).digest('hex') !== a.sha256) {
      found('acknowledged ingest altered', `${r.hash}: content differs from what was sent`);
    }
    if (a?.data !== undefined && !isDeepStrictEqual(JSON.parse(bytes.toString()), a.data)) {
      found('acknowledged ingest altered', `${r.hash}: data differs from what was sent`);
    }
  });

  for (const [hash, want] of load.expected) {
    const r = byHash.get(hash);
    if (!r || load.uncertain.has(hash)) continue;
    const got = { tags: r.tags, description: r.description, is_trashed: r.is_trashed };
    if (!isDeepStrictEqual(got, want)) {
      found(
        'acknowledged change lost',
        `${hash}: ${JSON.stringify(got)}, expected ${JSON.stringify(want)}`,
      );
    }
  }

  const client = checkerS3(s3);
  try {
    const state = await bucketState(client, bucket);
    const objects = new Set(state.assets);
    for (const r of records)
      if (!objects.has(r.hash)) found('index row without its object', r.hash);
    for (const hash of objects) if (!byHash.has(hash)) found('object without its index row', hash);
    for (const key of state.staged) found('left in the bucket: staged object', key);
    for (const key of state.uploads) found('left in the bucket: unfinished multipart upload', key);
  } finally {
    client.destroy();
  }

  const uploads = { finished: 0, awaitingExpiry: 0 };
  for (const store of stores) {
    const tmp = path.join(store.dir, 'root', '.tmp');
    for (const entry of fs.existsSync(tmp) ? fs.readdirSync(tmp) : []) {
      const where = path.join(tmp, entry);
      if (entry === 'uploads') {
        checkUploads(where, store.name, uploads, found);
        continue;
      }
      // The live process's own staging folder holds its lock and nothing else at rest.
      const inside = fs.statSync(where).isDirectory() ? fs.readdirSync(where) : [entry];
      const rest = inside.filter((name) => name !== 'service.lock');
      if (!inside.includes('service.lock') || rest.length > 0) {
        found(
          'left in .tmp',
          `${store.name}: ${entry}${rest.length ? ` (${rest.join(', ')})` : ''}`,
        );
      }
    }
  }
  return {
    anomalies,
    records: byHash,
    figures: {
      assets_indexed: records.length,
      acknowledged: load.acked.length,
      finished_upload_records: uploads.finished,
      unfinished_uploads_awaiting_expiry: uploads.awaitingExpiry,
    },
  };
}

/**
 * `.tmp/uploads/` as docs/uploads.md has it: a finished upload keeps its `<id>.json` (with
 * its asset) until it expires, but not its bytes; an unfinished one (a client that gave up),
 * bytes without a record (a crash between the two) and a record's temp file (a crash while
 * writing it) wait for the expiry sweep. Only a finished upload's bytes left behind is wrong.
 */
function checkUploads(
  dir: string,
  store: string,
  counts: { finished: number; awaitingExpiry: number },
  found: (kind: string, detail: string) => void,
): void {
  const names = new Set(fs.readdirSync(dir));
  for (const name of names) {
    if (!name.endsWith('.json')) {
      if (!names.has(`${name}.json`)) counts.awaitingExpiry++;
      continue;
    }
    const info = JSON.parse(fs.readFileSync(path.join(dir, name), 'utf8')) as { asset?: unknown };
    const id = name.slice(0, -'.json'.length);
    if (!info.asset) counts.awaitingExpiry++;
    else if (names.has(id))
      found("left in .tmp/uploads: a finished upload's bytes", `${store}: ${id}`);
    else counts.finished++;
  }
}
