import { setTimeout as sleep } from 'node:timers/promises';
import cliProgress from 'cli-progress';
import type { Job, JobRequest } from '../client/index.js';
import { InterruptedError } from './cli-errors.js';
import type { CliIo } from './cli-io.js';
import type { StoreClient } from './store-client.js';
import { formatBytes } from './upload-progress.js';

/** How often a followed job is asked for its state. */
const POLL_MS = 500;

/** Starts a job (`POST /admin/jobs`) and follows it to its end. */
export async function startAndFollow(
  client: StoreClient,
  request: JobRequest,
  io: CliIo,
  json: boolean,
): Promise<Job> {
  const job = await client.api.startJob(request);
  return followJob(client, job, io, json);
}

/**
 * Polls a job until it is no longer running: a bar on a terminal, else with `--json` a
 * line each time its state changes. Ctrl-C stops following, not the job.
 */
export async function followJob(
  client: StoreClient,
  first: Job,
  io: CliIo,
  json: boolean,
): Promise<Job> {
  const bar =
    !json && io.isTTY
      ? new cliProgress.SingleBar(
          {
            stream: io.progressStream,
            hideCursor: true,
            format: `${first.kind} {bar} {percentage}% | {done}/{total} | {bytes} | ETA {eta}`,
          },
          cliProgress.Presets.shades_classic,
        )
      : undefined;
  bar?.start(Math.max(1, first.total ?? 1), 0, payload(first));
  let job = first;
  let printed = '';
  for (;;) {
    if (json) {
      const line = JSON.stringify(job);
      if (line !== printed) io.stdout(`${line}\n`);
      printed = line;
    }
    if (bar) {
      bar.setTotal(Math.max(1, job.total ?? 1));
      bar.update(job.done, payload(job));
    }
    if (job.status !== 'running') break;
    try {
      await sleep(POLL_MS, undefined, { signal: io.stop });
    } catch {
      bar?.stop();
      io.stderr(
        `asset-store: job ${job.id} keeps running; ` +
          `follow it with \`asset-store jobs ${job.id} --follow\`, ` +
          `cancel it with \`asset-store jobs ${job.id} --cancel\`\n`,
      );
      throw new InterruptedError();
    }
    job = await client.api.job(first.id);
  }
  bar?.stop();
  if (!json) {
    io.stderr(`asset-store: ${job.kind} job ${job.id} ${job.status}\n`);
    if (job.result !== null) {
      io.stdout(`${JSON.stringify(job.result, null, 2)}\n`);
    }
  }
  return job;
}

function payload(job: Job) {
  return {
    done: job.done,
    total: job.total ?? '?',
    bytes:
      job.bytes_total !== null
        ? `${formatBytes(job.bytes_done)}/${formatBytes(job.bytes_total)}`
        : '',
    eta: job.eta_s === null ? '?' : `${Math.round(job.eta_s)} s`,
  };
}
