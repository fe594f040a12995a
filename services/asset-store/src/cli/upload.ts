import { createHash } from 'node:crypto';
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import { API_BASE } from '../api-base.js';
import { describeError, InterruptedError } from './cli-errors.js';
import type { PlannedFile } from './file-walk.js';
import type { IngestFields, StoreClient } from './store-client.js';
import type { UrlStorage } from './upload-state.js';

/** Files larger than this go through tus (contract, "asset-store: CLI"). */
export const TUS_THRESHOLD_BYTES = 8 << 20;

/** What became of one file: the `--json` line. */
export interface FileOutcome {
  path: string;
  status: 'stored' | 'skipped' | 'failed';
  hash?: string;
  timestamp?: number;
  error?: string;
}

/** What the progress display hears about. */
export interface UploadListener {
  fileStarted(file: PlannedFile): void;
  /** Bytes of `file` sent (or hashed, for a skipped file) since the last call. */
  bytes(file: PlannedFile, delta: number): void;
  fileDone(file: PlannedFile, outcome: FileOutcome): void;
}

/** One upload run's settings. */
export interface UploadRun {
  client: StoreClient;
  files: readonly PlannedFile[];
  /** Fields sent with every file (`tags`, `application`, `user`, `description`). */
  common: IngestFields;
  concurrency: number;
  force: boolean;
  state: UrlStorage;
  listener: UploadListener;
  /** Ctrl-C: start no new file, let small uploads in flight finish, pause tus uploads. */
  stop: AbortSignal;
  /** Second Ctrl-C: abandon uploads in flight too (the store keeps none of them). */
  abort: AbortSignal;
}

/** Totals of a run. */
export interface UploadSummary {
  stored: number;
  skipped: number;
  failed: number;
  /** Files not started (or paused) because the run was stopped. */
  notDone: number;
}

/**
 * Uploads every planned file with at most `concurrency` at a time. Each file is hashed,
 * looked up by content (skipped when the store already shows it, unless `force`), then
 * sent: in one `POST /ingest` carrying its `sha256` (the store refuses other bytes), or
 * over tus when larger than 8 MiB. Outcomes are reported as they come.
 */
export async function uploadFiles(run: UploadRun): Promise<UploadSummary> {
  const summary: UploadSummary = { stored: 0, skipped: 0, failed: 0, notDone: 0 };
  let next = 0;
  const worker = async () => {
    while (next < run.files.length && !run.stop.aborted) {
      const file = run.files[next++]!;
      run.listener.fileStarted(file);
      const outcome = await uploadOne(run, file).catch((err: unknown): FileOutcome | undefined =>
        // Whatever a second Ctrl-C cut short is "not done", not a failure of the file.
        err instanceof InterruptedError || run.abort.aborted
          ? undefined
          : { path: file.path, status: 'failed', error: describeError(err) },
      );
      if (!outcome) {
        summary.notDone++;
        continue;
      }
      summary[outcome.status]++;
      run.listener.fileDone(file, outcome);
    }
  };
  const workers = Math.max(1, Math.min(run.concurrency, run.files.length));
  await Promise.all(Array.from({ length: workers }, worker));
  summary.notDone += run.files.length - next;
  return summary;
}

async function uploadOne(run: UploadRun, file: PlannedFile): Promise<FileOutcome> {
  const large = file.size > TUS_THRESHOLD_BYTES;
  // Small files are read once: hashed and sent from the same buffer.
  const content = large ? undefined : await fsp.readFile(file.path);
  const sha256 = content
    ? createHash('sha256').update(content).digest('hex')
    : await hashFile(file.path, run.abort);
  if (!run.force) {
    const found = await run.client.findByContent(sha256, run.abort);
    if (found) {
      run.listener.bytes(file, file.size);
      return { path: file.path, status: 'skipped', hash: found.hash, timestamp: found.timestamp };
    }
  }
  const fields: IngestFields = {
    ...run.common,
    human_file_name: file.name,
    human_readable_path: file.folder,
  };
  if (content) {
    const result = await run.client.ingest(content, file.name, { ...fields, sha256 }, run.abort);
    run.listener.bytes(file, file.size);
    return { path: file.path, status: 'stored', hash: result.hash, timestamp: result.timestamp };
  }
  let sent = 0;
  // Loaded only when a large file comes: most runs never need tus-js-client.
  const { tusUpload } = await import('./tus-upload.js');
  const result = await tusUpload({
    endpoint: `${run.client.baseUrl}${API_BASE}/uploads`,
    file: file.path,
    size: file.size,
    filename: file.name,
    fields,
    headers: run.client.authHeaders,
    state: run.state,
    signal: run.stop,
    onBytes: (now) => {
      // A resumed upload reports from its offset; count only what is new.
      if (now > sent) run.listener.bytes(file, now - sent);
      sent = Math.max(sent, now);
    },
  });
  if (sent < file.size) run.listener.bytes(file, file.size - sent);
  return { path: file.path, status: 'stored', ...result };
}

async function hashFile(file: string, signal: AbortSignal): Promise<string> {
  const hash = createHash('sha256');
  for await (const chunk of fs.createReadStream(file, { highWaterMark: 1 << 20, signal })) {
    hash.update(chunk as Buffer);
  }
  return hash.digest('hex');
}
