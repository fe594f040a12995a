import { runCli } from '../src/cli/cli.js';

/** What one in-process CLI run printed, and its exit code. */
export interface CliRun {
  code: number;
  out: string;
  err: string;
}

/** A run's abort signal, and a callback for each piece of stdout as it is printed. */
export interface CliRunOptions {
  signal?: AbortSignal;
  onOut?: (text: string) => void;
}

/** Runs the CLI in-process with `args` and no environment, collecting what it prints. */
export async function runCliCollecting(
  args: string[],
  options: CliRunOptions = {},
): Promise<CliRun> {
  let out = '';
  let err = '';
  const code = await runCli(args, {
    stdout: (text) => {
      out += text;
      options.onOut?.(text);
    },
    stderr: (text) => (err += text),
    env: {},
    signal: options.signal,
  });
  return { code, out, err };
}
