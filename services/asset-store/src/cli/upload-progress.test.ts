import type { CliIo } from './cli-io.js';
import type { PlannedFile } from './file-walk.js';
import type { FileOutcome } from './upload.js';
import { JSON_FLUSH_MS, uploadReporter } from './upload-progress.js';

/** An io that records each write to stdout and stderr separately. */
function recordingIo(): { io: CliIo; out: string[]; err: string[] } {
  const out: string[] = [];
  const err: string[] = [];
  const io = {
    stdout: (text: string) => out.push(text),
    stderr: (text: string) => err.push(text),
    binaryOut: process.stdout,
    env: {},
    isTTY: false,
    progressStream: process.stderr,
    stop: new AbortController().signal,
    abort: new AbortController().signal,
  } satisfies CliIo;
  return { io, out, err };
}

const file = (i: number): PlannedFile => ({
  path: `dir/f${i}.bin`,
  name: `f${i}.bin`,
  folder: 'dir',
  size: 4096,
});
const stored = (i: number): FileOutcome => ({
  path: `dir/f${i}.bin`,
  status: 'stored',
  hash: 'a'.repeat(64),
  timestamp: 1_700_000_000_000 + i,
});
const lines = (writes: string[]): unknown[] =>
  writes
    .join('')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as unknown);

describe('uploadReporter --json', () => {
  it('writes the lines of files done close together in one write, in order', async () => {
    const { io, out } = recordingIo();
    const files = [0, 1, 2].map(file);
    const reporter = uploadReporter(io, files, true);
    reporter.fileDone(files[0]!, stored(0));
    await new Promise((resolve) => setTimeout(resolve, 10));
    reporter.fileDone(files[1]!, stored(1));
    expect(out).toEqual([]);
    await new Promise((resolve) => setTimeout(resolve, JSON_FLUSH_MS + 50));
    expect(out).toHaveLength(1);
    expect(lines(out)).toEqual([stored(0), stored(1)]);
    reporter.fileDone(files[2]!, stored(2));
    await new Promise((resolve) => setTimeout(resolve, JSON_FLUSH_MS + 50));
    expect(out).toHaveLength(2);
    expect(lines(out)).toEqual([stored(0), stored(1), stored(2)]);
  });

  it('writes what waits at finish, before the summary, and nothing after', async () => {
    const { io, out, err } = recordingIo();
    const files = [0, 1].map(file);
    const reporter = uploadReporter(io, files, true);
    reporter.bytes(files[0]!, 4096);
    reporter.fileDone(files[0]!, stored(0));
    reporter.fileDone(files[1]!, { path: 'dir/f1.bin', status: 'failed', error: 'gone' });
    reporter.finish({ stored: 1, skipped: 0, failed: 1, notDone: 0 }, false);
    expect(lines(out)).toEqual([
      stored(0),
      { path: 'dir/f1.bin', status: 'failed', error: 'gone' },
    ]);
    expect(err).toEqual([
      expect.stringMatching(
        /^asset-store: 1 stored, 0 skipped, 1 failed \(4.0 KiB in [\d.]+ s\)\n$/,
      ),
    ]);
    await new Promise((resolve) => setTimeout(resolve, JSON_FLUSH_MS + 50));
    expect(out).toHaveLength(1);
  });

  it('does not hold many lines back: a long run of them is written before the timer', () => {
    const { io, out } = recordingIo();
    const files = Array.from({ length: 200 }, (_, i) => file(i));
    const reporter = uploadReporter(io, files, true);
    files.forEach((f, i) => reporter.fileDone(f, stored(i)));
    expect(out.length).toBeGreaterThanOrEqual(1);
    expect(out.every((w) => w.length <= 16_384 + 200)).toBe(true);
    reporter.finish({ stored: 200, skipped: 0, failed: 0, notDone: 0 }, false);
    expect(lines(out)).toEqual(files.map((_, i) => stored(i)));
  });
});
