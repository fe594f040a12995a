import http from 'node:http';
import {
  ListMultipartUploadsCommand,
  paginateListObjectsV2,
  type S3Client,
} from '@aws-sdk/client-s3';

/** What a bucket holds, read from S3 itself: asset objects, internal keys, open uploads. */
export interface BucketState {
  /** Top-level keys under the prefix: the assets' objects. */
  assets: string[];
  /** Staged copies left under `.tmp/`. */
  staged: string[];
  /** Multipart uploads not completed or aborted. */
  uploads: string[];
}

export async function bucketState(
  client: S3Client,
  bucket: string,
  prefix = '',
): Promise<BucketState> {
  const keys: string[] = [];
  for await (const page of paginateListObjectsV2({ client }, { Bucket: bucket, Prefix: prefix })) {
    for (const object of page.Contents ?? []) keys.push(object.Key!.slice(prefix.length));
  }
  const uploads = await client.send(
    new ListMultipartUploadsCommand({ Bucket: bucket, Prefix: prefix }),
  );
  return {
    assets: keys.filter((k) => !k.startsWith('.')).sort(),
    staged: keys.filter((k) => k.startsWith('.tmp/')).sort(),
    uploads: (uploads.Uploads ?? []).map((u) => u.Key!).sort(),
  };
}

/** An HTTP answer as the tests read it. */
export interface Answer {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: unknown;
}

/**
 * A file ingest whose body is sent in two halves: `first` bytes of the file, then the rest
 * once `gate` resolves, so the test knows the upload is under way when it cuts S3. The
 * server may answer before it has read everything; what was left is then not sent.
 */
export function ingestInTwoHalves(
  port: number,
  content: Buffer,
  first: number,
  gate: Promise<void>,
): Promise<Answer> {
  const boundary = 'halves';
  const head = Buffer.from(
    `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="big.bin"\r\n` +
      'Content-Type: application/octet-stream\r\n\r\n',
  );
  const tail = Buffer.from(`\r\n--${boundary}--\r\n`);
  return new Promise((resolve, reject) => {
    const req = http.request({
      host: '127.0.0.1',
      port,
      method: 'POST',
      path: '/api/v1/can/0/ingest',
      headers: {
        'Content-Type': `multipart/form-data; boundary=${boundary}`,
        'Content-Length': head.length + content.length + tail.length,
      },
    });
    let answered = false;
    req.on('response', (res) => {
      answered = true;
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        resolve({ status: res.statusCode!, headers: res.headers, body: JSON.parse(text) });
      });
    });
    // Writes after an early answer may fail: the answer is what counts.
    req.on('error', (err) => {
      if (!answered) reject(err);
    });
    req.write(Buffer.concat([head, content.subarray(0, first)]));
    void gate.then(() => {
      if (answered) return;
      req.end(Buffer.concat([content.subarray(first), tail]));
    });
  });
}
