import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);
const ROOT = path.resolve(import.meta.dirname, '..');

/** The state of one service's container, as `docker inspect` tells it. */
export interface ContainerState {
  Status: string;
  ExitCode: number;
  StartedAt: string;
  FinishedAt: string;
  Health?: { Status: string; Log?: { Start: string; ExitCode: number }[] };
}

/**
 * `docker compose` (v2) when the CLI has it, else `docker-compose` (v1, as Debian ships it);
 * `COMPOSE` (e.g. `docker-compose`) picks one.
 */
async function composeCommand(): Promise<string[]> {
  if (process.env.COMPOSE) return process.env.COMPOSE.split(' ');
  try {
    await run('docker', ['compose', 'version']);
    return ['docker', 'compose'];
  } catch {
    return ['docker-compose'];
  }
}

/** The repository's docker-compose.yml under a project name of its own, driven as a user would. */
export class ComposeStack {
  private constructor(
    private readonly command: string[],
    readonly project: string,
  ) {}

  static async open(project: string): Promise<ComposeStack> {
    return new ComposeStack(await composeCommand(), project);
  }

  /** Runs one compose command in the repository root and returns its output. */
  async compose(...args: string[]): Promise<string> {
    const [file = 'docker-compose', ...pre] = this.command;
    const { stdout } = await run(file, [...pre, '-p', this.project, ...args], {
      cwd: ROOT,
      maxBuffer: 64 * 1024 * 1024,
    });
    return stdout;
  }

  /** The id of a service's container. */
  async containerId(service: string): Promise<string> {
    const id = (await this.compose('ps', '-q', service)).trim();
    if (!id) throw new Error(`compose project ${this.project} has no container for ${service}`);
    return id;
  }

  /** `docker inspect`'s State of a service's container. */
  async state(service: string): Promise<ContainerState> {
    const id = await this.containerId(service);
    const { stdout } = await run('docker', ['inspect', '--format', '{{json .State}}', id]);
    return JSON.parse(stdout) as ContainerState;
  }

  /** Waits until Docker's health check calls the service healthy; returns the seconds from its start. */
  async waitHealthy(service: string, timeoutMs = 120_000): Promise<number> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const state = await this.state(service);
      if (state.Health?.Status === 'healthy') {
        return (Date.now() - Date.parse(state.StartedAt)) / 1000;
      }
      if (state.Status === 'exited' || Date.now() > deadline) {
        const logs = await this.compose('logs', '--tail', '30', service).catch(() => '');
        throw new Error(`${service} is ${state.Status}, health ${state.Health?.Status}:\n${logs}`);
      }
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
  }
}
