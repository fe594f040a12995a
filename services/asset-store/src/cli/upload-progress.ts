import cliProgress from 'cli-progress';
import type { PlannedFile } from './file-walk.js';
import type { CliIo } from './cli-io.js';
import type { FileOutcome, UploadListener, UploadSummary } from './upload.js';

/** A listener that also closes its display and prints the run's summary. */
export interface UploadReporter extends UploadListener {
  finish(summary: UploadSummary, interrupted: boolean): void;
}

/** `--json` lines wait at most this long for company before they are written. */
export const JSON_FLUSH_MS = 100;
/** …or until this much is waiting (well under a pipe's 64 KiB, so a write never blocks long). */
const JSON_FLUSH_CHARS = 16_384;

/** Bytes as people read them (binary units). */
export function formatBytes(bytes: number): string {
  const units = ['B', 'KiB', 'MiB', 'GiB', 'TiB'];
  let value = bytes;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit++;
  }
  return `${unit === 0 ? value : value.toFixed(1)} ${units[unit]}`;
}

/** The line a file's outcome gets without `--json`: failures, and copies within the run. */
function outcomeLine(outcome: FileOutcome): string | undefined {
  if (outcome.status === 'failed') return `failed ${outcome.path}: ${outcome.error}\n`;
  if (outcome.same_as !== undefined) {
    return `skipped ${outcome.path}: same content as ${outcome.same_as}\n`;
  }
  return undefined;
}

/**
 * The reporter for this run: `--json` lines on stdout; else on a terminal one overall bar
 * (files, bytes, rate, ETA) and the file in flight; else a line per failure and a summary.
 */
export function uploadReporter(
  io: CliIo,
  files: readonly PlannedFile[],
  json: boolean,
): UploadReporter {
  const totalBytes = files.reduce((sum, f) => sum + f.size, 0);
  const started = Date.now();
  let bytesDone = 0;
  let filesDone = 0;
  const summaryLine = (summary: UploadSummary, interrupted: boolean) => {
    const seconds = (Date.now() - started) / 1000;
    const parts = [
      `${summary.stored} stored`,
      `${summary.skipped} skipped`,
      `${summary.failed} failed`,
    ];
    if (summary.notDone) parts.push(`${summary.notDone} not done`);
    return (
      `asset-store: ${interrupted ? 'interrupted: ' : ''}${parts.join(', ')} ` +
      `(${formatBytes(bytesDone)} in ${seconds.toFixed(2)} s)\n`
    );
  };

  if (json) {
    // Lines go out together, at most JSON_FLUSH_MS after the first of them: each write to
    // a pipe wakes its reader, and a write per file slowed small uploads (bench/NOTES.md).
    let pending = '';
    let timer: NodeJS.Timeout | undefined;
    const flush = () => {
      clearTimeout(timer);
      timer = undefined;
      if (pending) io.stdout(pending);
      pending = '';
    };
    return {
      fileStarted: () => undefined,
      bytes: (_file, delta) => (bytesDone += delta),
      fileDone: (_file, outcome) => {
        pending += `${JSON.stringify(outcome)}\n`;
        if (pending.length >= JSON_FLUSH_CHARS) flush();
        else timer ??= setTimeout(flush, JSON_FLUSH_MS);
      },
      finish: (summary, interrupted) => {
        flush();
        io.stderr(summaryLine(summary, interrupted));
      },
    };
  }
  if (!io.isTTY) {
    return {
      fileStarted: () => undefined,
      bytes: (_file, delta) => (bytesDone += delta),
      fileDone: (_file, outcome) => {
        const line = outcomeLine(outcome);
        if (line) io.stderr(line);
      },
      finish: (summary, interrupted) => io.stderr(summaryLine(summary, interrupted)),
    };
  }

  const rate = () => bytesDone / Math.max(0.001, (Date.now() - started) / 1000);
  const payload = () => ({
    files: `${filesDone}/${files.length}`,
    bytes: `${formatBytes(bytesDone)}/${formatBytes(totalBytes)}`,
    rate: `${formatBytes(rate())}/s`,
  });
  const bars = new cliProgress.MultiBar(
    {
      stream: io.progressStream,
      hideCursor: true,
      clearOnComplete: false,
      etaBuffer: 200,
      format: '{bar} {percentage}% | {files} files | {bytes} | {rate} | ETA {eta_formatted}',
    },
    cliProgress.Presets.shades_classic,
  );
  const overall = bars.create(Math.max(1, totalBytes), 0, payload());
  const inFlight = bars.create(1, 0, { file: '' }, { format: '  {file}' });
  return {
    fileStarted: (file) => inFlight.update(0, { file: file.path }),
    bytes: (_file, delta) => {
      bytesDone += delta;
      overall.update(bytesDone, payload());
    },
    fileDone: (_file, outcome) => {
      filesDone++;
      overall.update(bytesDone, payload());
      const line = outcomeLine(outcome);
      if (line) bars.log(line);
    },
    finish: (summary, interrupted) => {
      inFlight.update(0, { file: '' });
      bars.stop();
      io.stderr(summaryLine(summary, interrupted));
    },
  };
}
