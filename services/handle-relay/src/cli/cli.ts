import { parseArgs } from 'node:util';
import { RelayClient, RelayClientError } from '../client/http-client.js';
import { readKeyFile, writeKeyFile } from '../client/key-file.js';
import { generateKeyPair, primaryOf } from '../client/keys.js';

/** Where the CLI writes and what it reads from the environment. */
export interface CliIo {
  stdout: (text: string) => void;
  stderr: (text: string) => void;
  env: NodeJS.ProcessEnv;
  fetch?: typeof fetch;
}

/** Default relay address (the service's default `bind`). */
export const DEFAULT_URL = 'http://127.0.0.1:8081';
/** Default key file, relative to the working directory. */
export const DEFAULT_KEY_FILE = 'handle-relay.key.json';

export const USAGE = `usage: handle-relay <command> [options]

commands:
  keygen                          write a new Ed25519 key file (mode 0600)
  register <handle>               claim <handle> for the key (server name from /v1/healthz)
  whois <handle|primary>          look up a handle, or the handle of ed25519:<hex>
  proofs set <handle> [proof...]  replace the published proofs (<channel>:<identifier>)

options:
  --url <base>     relay base URL (env HANDLE_RELAY_URL, default ${DEFAULT_URL})
  --key <file>     key file (env HANDLE_RELAY_KEY_FILE, default ./${DEFAULT_KEY_FILE})
  --server <name>  server name to sign into a registration (default: asked from the relay)
`;

class UsageError extends Error {}

/** Runs one CLI invocation; resolves to the process exit code (0 ok, 1 failed, 2 usage). */
export async function runCli(argv: readonly string[], io: CliIo): Promise<number> {
  try {
    await dispatch(argv, io);
    return 0;
  } catch (err) {
    if (err instanceof UsageError) {
      io.stderr(`handle-relay: ${err.message}\n\n${USAGE}`);
      return 2;
    }
    if (err instanceof RelayClientError) {
      io.stderr(`handle-relay: ${err.status} ${err.code}: ${err.message}\n`);
      return 1;
    }
    io.stderr(`handle-relay: ${err instanceof Error ? err.message : String(err)}\n`);
    return 1;
  }
}

async function dispatch(argv: readonly string[], io: CliIo): Promise<void> {
  let parsed;
  try {
    parsed = parseArgs({
      args: [...argv],
      allowPositionals: true,
      options: {
        url: { type: 'string' },
        key: { type: 'string' },
        server: { type: 'string' },
        help: { type: 'boolean', short: 'h' },
      },
    });
  } catch (err) {
    throw new UsageError((err as Error).message);
  }
  const { values, positionals } = parsed;
  const [command, ...args] = positionals;
  if (values.help || command === 'help' || command === undefined) {
    io.stdout(USAGE);
    return;
  }
  const keyFile = values.key ?? io.env.HANDLE_RELAY_KEY_FILE ?? DEFAULT_KEY_FILE;
  const client = new RelayClient({
    baseUrl: values.url ?? io.env.HANDLE_RELAY_URL ?? DEFAULT_URL,
    fetch: io.fetch,
  });
  const print = (value: unknown) => io.stdout(`${JSON.stringify(value, null, 2)}\n`);

  switch (command) {
    case 'keygen': {
      expectArgs(args, 0, 'keygen');
      const keys = generateKeyPair();
      await writeKeyFile(keyFile, keys);
      io.stdout(`${primaryOf(keys.publicKey)}\nwrote ${keyFile}\n`);
      return;
    }
    case 'register': {
      const [handle] = expectArgs(args, 1, 'register <handle>');
      const keys = await readKeyFile(keyFile);
      const server = values.server ?? (await client.health()).server;
      print(await client.register(server, handle ?? '', keys));
      return;
    }
    case 'whois': {
      const [who] = expectArgs(args, 1, 'whois <handle|primary>');
      print(who?.includes(':') ? await client.byPrimary(who) : await client.lookup(who ?? ''));
      return;
    }
    case 'proofs': {
      const [sub, handle, ...proofs] = args;
      if (sub !== 'set' || !handle)
        throw new UsageError('expected: proofs set <handle> [proof...]');
      await client.setProofs(handle, proofs, await readKeyFile(keyFile));
      io.stdout(`proofs of ${handle} set (${proofs.length})\n`);
      return;
    }
    default:
      throw new UsageError(`unknown command ${command}`);
  }
}

function expectArgs(args: readonly string[], count: number, shape: string): readonly string[] {
  if (args.length !== count) throw new UsageError(`expected: ${shape}`);
  return args;
}
