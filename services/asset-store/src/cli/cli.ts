import { Command, CommanderError } from 'commander';
import { addAssetCommands } from './asset-commands.js';
import { CLI_ENV } from './cli-env.js';
import { addEventCommands } from './event-commands.js';
import { describeError, EXIT, InterruptedError, UsageError } from './cli-errors.js';
import type { CliIo } from './cli-io.js';
import type { CommandContext } from './command-context.js';
import { addJobCommands } from './job-commands.js';
import { StoreClient } from './store-client.js';
import { addUploadCommand } from './upload-command.js';
import { cliVersion } from './cli-version.js';

/** Default store address (the service's default `listen`). */
export const DEFAULT_URL = 'http://127.0.0.1:8080';

interface GlobalFlags {
  url?: string;
  token?: string;
  json?: boolean;
}

/** Runs one CLI invocation; resolves to the exit code (see `EXIT`). */
export async function runCli(argv: readonly string[], io: CliIo): Promise<number> {
  const clients: StoreClient[] = [];
  let code: number = EXIT.ok;
  const program = buildProgram(io, (c) => (code = c), clients);
  try {
    await program.parseAsync([...argv], { from: 'user' });
    return code;
  } catch (err) {
    if (err instanceof CommanderError) return err.exitCode === 0 ? EXIT.ok : EXIT.usage;
    if (err instanceof InterruptedError) return EXIT.interrupted;
    if (err instanceof UsageError) {
      io.stderr(`asset-store: ${err.message}\n`);
      return EXIT.usage;
    }
    io.stderr(`asset-store: ${describeError(err, clients[0]?.baseUrl)}\n`);
    return EXIT.failed;
  } finally {
    await Promise.all(clients.map((c) => c.close()));
  }
}

function buildProgram(io: CliIo, setCode: (code: number) => void, clients: StoreClient[]) {
  const program = new Command('asset-store')
    .description('Upload, find, fetch and look after assets in an asset-store service.')
    .version(cliVersion())
    .option('--url <base>', `store address (env ${CLI_ENV.url}, default ${DEFAULT_URL})`)
    .option('--token <token>', `bearer token: API or admin token (env ${CLI_ENV.token})`)
    .option('--json', 'JSON lines on stdout instead of tables and bars')
    .exitOverride()
    .configureOutput({ writeOut: io.stdout, writeErr: io.stderr })
    .showHelpAfterError();

  const globals = (cmd: Command) => cmd.optsWithGlobals<GlobalFlags>();
  const ctx: CommandContext = {
    io,
    setCode,
    json: (cmd) => globals(cmd).json ?? false,
    print: (cmd, value) =>
      io.stdout(`${globals(cmd).json ? JSON.stringify(value) : JSON.stringify(value, null, 2)}\n`),
    client: (cmd, connections) => {
      const flags = globals(cmd);
      const c = new StoreClient({
        baseUrl: flags.url ?? io.env[CLI_ENV.url] ?? DEFAULT_URL,
        token: flags.token ?? io.env[CLI_ENV.token],
        connections,
      });
      clients.push(c);
      return c;
    },
  };
  addUploadCommand(program, ctx);
  addAssetCommands(program, ctx);
  addJobCommands(program, ctx);
  addEventCommands(program, ctx);
  return program;
}
