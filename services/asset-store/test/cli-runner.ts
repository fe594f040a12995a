import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';

const SERVICE_DIR = path.resolve(import.meta.dirname, '..');
const CLI_MAIN = path.join(SERVICE_DIR, 'src/cli/main.ts');
// Absolute, so the CLI can run from any working folder (tsx's ESM loader).
const TSX_LOADER = pathToFileURL(
  path.resolve(SERVICE_DIR, '../../node_modules/tsx/dist/loader.mjs'),
).href;

/** How one CLI process ended and what it printed. */
export interface CliRun {
  code: number | null;
  out: string;
  err: string;
}

/** Where and with what environment the CLI runs. */
export interface CliOptions {
  cwd?: string;
  env?: NodeJS.ProcessEnv;
}

/** A CLI process still running: its child, what it printed so far, and its end. */
export interface RunningCli {
  child: ChildProcess;
  out(): string;
  err(): string;
  done: Promise<CliRun>;
}

/**
 * Starts the `asset-store` bin as users run it (its own process, from source through tsx),
 * with a clean environment: only PATH, a scratch HOME and what the test passes.
 */
export function startCli(args: readonly string[], options: CliOptions = {}): RunningCli {
  const home = fs.mkdtempSync(path.join(os.tmpdir(), 'asset-cli-home-'));
  const child = spawn(
    process.execPath,
    ['--conditions=source', '--import', TSX_LOADER, CLI_MAIN, ...args],
    {
      cwd: options.cwd ?? home,
      env: { PATH: process.env.PATH, HOME: home, ...options.env },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  let out = '';
  let err = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => (out += chunk));
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (err += chunk));
  const done = new Promise<CliRun>((resolve, reject) => {
    child.once('error', reject);
    child.once('close', (code) => {
      fs.rmSync(home, { recursive: true, force: true });
      resolve({ code, out, err });
    });
  });
  return { child, out: () => out, err: () => err, done };
}

/** Runs the CLI to its end. */
export function runCli(args: readonly string[], options: CliOptions = {}): Promise<CliRun> {
  return startCli(args, options).done;
}

/** The `--json` lines a run printed, parsed. */
export function jsonLines<T = Record<string, unknown>>(out: string): T[] {
  return out
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => JSON.parse(line) as T);
}

/** Writes files under `dir` (paths relative to it, folders made as needed). */
export function writeTree(dir: string, files: Record<string, string | Buffer>): void {
  for (const [name, content] of Object.entries(files)) {
    const file = path.join(dir, name);
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.writeFileSync(file, content);
  }
}
