import { createHash } from 'node:crypto';
import fsp from 'node:fs/promises';
import { API_BASE } from '../api-base.js';
import { describeError, InterruptedError } from './cli-errors.js';
import {
  checkFiles,
  KEEP_CONTENT_BYTES,
  readSmallFile,
  type CheckedFile,
} from './content-check.js';
import type { PlannedFile } from './file-walk.js';
import type { IngestFields } from '../client/index.js';
import type { StoreClient } from './store-client.js';
import type { UrlStorage } from './upload-state.js';

/** Files larger than this go through tus (contract, "asset-store: CLI"). */
export const TUS_THRESHOLD_BYTES = 8 << 20;

/** What became of one file: the `--json` line. */
export interface FileOutcome {
  path: string;
  status: 'stored' | 'skipped' | 'failed';
  hash?: string;
  timestamp?: number;
  /** Skipped: an earlier file of this run had the same content (its path). */
  same_as?: string;
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
 * Uploads every planned file with at most `concurrency` at a time. Files are hashed and
 * checked against the store a batch at a time (skipped when the store already shows the
 * content, unless `force`), then sent: in one `POST /ingest` carrying its `sha256` (the
 * store refuses other bytes), or over tus when larger than 8 MiB. Outcomes are reported
 * as they come.
 */
export async function uploadFiles(run: UploadRun): Promise<UploadSummary> {
  const summary: UploadSummary = { stored: 0, skipped: 0, failed: 0, notDone: 0 };
  const checked = checkFiles({
    client: run.client,
    files: run.files,
    force: run.force,
    abort: run.abort,
  });
  // Each file's outcome (undefined: not done), for the later files of the run with its content.
  const outcomes = new Map<PlannedFile, Outcome>();
  const outcomeOf = (file: PlannedFile): Outcome => {
    let entry = outcomes.get(file);
    if (!entry) outcomes.set(file, (entry = newOutcome()));
    return entry;
  };
  const settle = (file: PlannedFile, outcome?: FileOutcome) => {
    if (outcome) {
      summary[outcome.status]++;
      run.listener.fileDone(file, outcome);
    }
    outcomeOf(file).resolve(outcome);
  };
  const worker = async () => {
    while (!run.stop.aborted) {
      // Workers share one generator: each `next()` waits its turn for the next file.
      const item = await checked.next();
      if (item.done) return;
      const { file, held, error, sameAs } = item.value;
      if (run.stop.aborted) return settle(file);
      run.listener.fileStarted(file);
      if (error !== undefined || held) {
        if (error !== undefined && run.abort.aborted) {
          settle(file);
          continue;
        }
        if (held) run.listener.bytes(file, file.size);
        settle(
          file,
          held
            ? { path: file.path, status: 'skipped', hash: held.hash, timestamp: held.timestamp }
            : { path: file.path, status: 'failed', error: describeError(error) },
        );
        continue;
      }
      if (sameAs) {
        // Stored once: this file waits for the first with its content (taken earlier, so
        // some worker has it), and is skipped unless that one failed.
        const first = await outcomeOf(sameAs).promise;
        if (first === undefined) {
          settle(file);
          continue;
        }
        if (first.status !== 'failed') {
          run.listener.bytes(file, file.size);
          const { hash, timestamp } = first;
          settle(file, {
            path: file.path,
            status: 'skipped',
            hash,
            timestamp,
            same_as: sameAs.path,
          });
          continue;
        }
      }
      const outcome = await uploadOne(run, item.value).catch(
        (err: unknown): FileOutcome | undefined =>
          // Whatever a second Ctrl-C cut short is "not done", not a failure of the file.
          err instanceof InterruptedError || run.abort.aborted
            ? undefined
            : { path: file.path, status: 'failed', error: describeError(err) },
      );
      settle(file, outcome);
    }
  };
  const workers = Math.max(1, Math.min(run.concurrency, run.files.length));
  await Promise.all(Array.from({ length: workers }, worker));
  summary.notDone = run.files.length - summary.stored - summary.skipped - summary.failed;
  return summary;
}

/** A file's outcome, awaited by later files with the same content (Node 20: no withResolvers). */
interface Outcome {
  promise: Promise<FileOutcome | undefined>;
  resolve: (outcome: FileOutcome | undefined) => void;
}

function newOutcome(): Outcome {
  let resolve!: Outcome['resolve'];
  const promise = new Promise<FileOutcome | undefined>((r) => (resolve = r));
  return { promise, resolve };
}

async function uploadOne(run: UploadRun, checked: CheckedFile): Promise<FileOutcome> {
  const { file } = checked;
  const fields: IngestFields = {
    ...run.common,
    human_file_name: file.name,
    human_readable_path: file.folder,
  };
  if (file.size <= TUS_THRESHOLD_BYTES) {
    // Bytes not kept from the check are read again and hashed as sent, so a file changed
    // since its check is stored as it is now rather than refused.
    const content =
      checked.content ??
      (file.size <= KEEP_CONTENT_BYTES
        ? readSmallFile(file.path)
        : await fsp.readFile(file.path, { signal: run.abort }));
    const digest =
      checked.content && checked.sha256
        ? checked.sha256
        : createHash('sha256').update(content).digest('hex');
    const result = await run.client.ingest(
      content,
      file.name,
      { ...fields, sha256: digest },
      run.abort,
    );
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
