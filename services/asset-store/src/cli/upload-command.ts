import type { Command } from 'commander';
import { CLI_ENV } from './cli-env.js';
import { EXIT, UsageError } from './cli-errors.js';
import type { CommandContext } from './command-context.js';
import { planFiles } from './file-walk.js';
import { uploadFiles } from './upload.js';
import { uploadReporter } from './upload-progress.js';
import { defaultStateFile, UploadStateFile } from './upload-state.js';

interface UploadFlags {
  tags?: string;
  application?: string;
  user?: string;
  description?: string;
  concurrency: string;
  force?: boolean;
  stateFile?: string;
}

/** `upload <path...>` (contract, "asset-store: CLI"). */
export function addUploadCommand(program: Command, ctx: CommandContext): void {
  program
    .command('upload')
    .description(
      'upload files and folders (recursive); skips content the store already has, and content stored earlier in the same run',
    )
    .argument('<path...>', 'files and folders')
    .option('--tags <tags>', 'comma-separated tags for every file')
    .option('--application <name>', 'producing application')
    .option('--user <user>', 'user or agent identity')
    .option('--description <text>', 'description for every file')
    .option('--concurrency <n>', 'files in flight at once', '4')
    .option(
      '--force',
      'upload every file, even when the store or an earlier file of the run has the same content',
    )
    .option('--state-file <file>', `resumable uploads (env ${CLI_ENV.stateFile})`)
    .action(async (paths: string[], flags: UploadFlags, cmd: Command) => {
      const concurrency = Number(flags.concurrency);
      if (!Number.isInteger(concurrency) || concurrency < 1 || concurrency > 64) {
        throw new UsageError('--concurrency: expected an integer from 1 to 64');
      }
      const files = await planFiles(paths);
      const client = ctx.client(cmd, concurrency);
      // One request first: an unreachable store or a wrong token is one error, not one per file.
      await client.check();
      const reporter = uploadReporter(ctx.io, files, ctx.json(cmd));
      const summary = await uploadFiles({
        client,
        files,
        common: {
          tags: flags.tags,
          application: flags.application,
          user: flags.user,
          description: flags.description,
        },
        concurrency,
        force: flags.force ?? false,
        state: new UploadStateFile(flags.stateFile ?? defaultStateFile(ctx.io.env)),
        listener: reporter,
        stop: ctx.io.stop,
        abort: ctx.io.abort,
      });
      reporter.finish(summary, ctx.io.stop.aborted);
      if (ctx.io.stop.aborted) ctx.setCode(EXIT.interrupted);
      else if (summary.failed > 0) ctx.setCode(EXIT.failed);
    });
}
