import type { Command } from 'commander';
import { EXIT, UsageError } from './cli-errors.js';
import type { CommandContext } from './command-context.js';
import type { Job } from '../client/index.js';
import { followJob, startAndFollow } from './jobs.js';

interface JobsFlags {
  follow?: boolean;
  cancel?: boolean;
}

/** `verify`, `rebuild` and `jobs`: the admin jobs API (contract, "asset-store: jobs"). */
export function addJobCommands(program: Command, ctx: CommandContext): void {
  const endOf = (job: Job) => ctx.setCode(job.status === 'done' ? EXIT.ok : EXIT.failed);
  program
    .command('verify')
    .description('start a full integrity scrub as a job and follow it (admin token)')
    .action(async (_flags: unknown, cmd: Command) => {
      endOf(await startAndFollow(ctx.client(cmd), { kind: 'verify' }, ctx.io, ctx.json(cmd)));
    });
  program
    .command('rebuild')
    .description('start an index rebuild as a job and follow it (admin token)')
    .option('--hard', 'empty the index first')
    .action(async (flags: { hard?: boolean }, cmd: Command) => {
      const request = { kind: 'rebuild', mode: flags.hard ? 'hard' : 'soft' } as const;
      endOf(await startAndFollow(ctx.client(cmd), request, ctx.io, ctx.json(cmd)));
    });
  program
    .command('jobs')
    .description('list recent jobs, or show, follow or cancel one (admin token)')
    .argument('[id]', 'a job id')
    .option('--follow', 'follow the job until it ends')
    .option('--cancel', 'cancel the job')
    .action(async (id: string | undefined, flags: JobsFlags, cmd: Command) => {
      const c = ctx.client(cmd);
      const json = ctx.json(cmd);
      if (id === undefined) {
        if (flags.follow || flags.cancel)
          throw new UsageError('--follow and --cancel need a job id');
        const jobs = await c.api.jobs();
        for (const job of jobs) {
          ctx.io.stdout(
            json
              ? `${JSON.stringify(job)}\n`
              : `${job.id}  ${job.kind}  ${job.status}  ${job.done}/${job.total ?? '?'}  ${job.started_at}\n`,
          );
        }
        return;
      }
      if (flags.cancel) ctx.print(cmd, await c.api.cancelJob(id));
      else if (flags.follow) endOf(await followJob(c, await c.api.job(id), ctx.io, json));
      else ctx.print(cmd, await c.api.job(id));
    });
}
