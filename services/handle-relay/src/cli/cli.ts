import fs from 'node:fs/promises';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { RelayClient, RelayClientError } from '../client/http-client.js';
import { readKeyFile, writeKeyFile } from '../client/key-file.js';
import { followInbox } from '../client/inbox-stream.js';
import { generateKeyPair, primaryOf } from '../client/keys.js';
import { CLI_ENV } from './cli-env.js';
import { MessageReader, sendText } from './message-lines.js';
import { DEFAULT_PINS_FILE, runTrustCommand, TRUST_USAGE } from './trust-commands.js';
import { CheckFailed } from './trust-context.js';

/** Where the CLI writes and what it reads from the environment. */
export interface CliIo {
  stdout: (text: string) => void;
  stderr: (text: string) => void;
  env: NodeJS.ProcessEnv;
  fetch?: typeof fetch;
  /** Ends long-running commands (`listen`); the bin aborts it on SIGINT/SIGTERM. */
  signal?: AbortSignal;
}

/** Default relay address (the service's default `bind`). */
export const DEFAULT_URL = 'http://127.0.0.1:8081';
/** Default key file, relative to the working directory. */
export const DEFAULT_KEY_FILE = 'handle-relay.key.json';

/** The help text printed by `help`, `--help` and usage errors. */
export const USAGE = `usage: handle-relay <command> [options]

commands:
  keygen                          write a new Ed25519 key file (mode 0600); with one
                                  there already, say so and keep it (--force: replace it)
  register <handle>               claim <handle> for the key (server name from /v1/healthz);
                                  a handle this key already owns is not an error
  whois <handle|primary>          look up a handle, or the handle of ed25519:<hex>
  proofs set <handle> [proof...]  replace the published proofs (<channel>:<identifier>)
  send <handle> <text>            encrypt <text> to the key <handle> publishes and relay it;
                                  an encrypted copy goes to your own inbox (other devices)
  send --raw <handle> <json>      relay a JSON envelope to <handle> as written
  inbox <handle>                  print one signed inbox page, one JSON line per message
                                  (--since, --limit)
  listen <handle>                 follow the live stream, one JSON line per message;
                                  reconnects with Last-Event-ID after a drop (--since)
${TRUST_USAGE}
A message line is {"seq","from","from_handle","text","sent_at"} for an encrypted envelope
that opens with the key ({"seq","from","from_handle","to","text","sent_at"} for a copy of
one this key sent to "to"), else {"seq","envelope","error"}.

options:
  --version        print the version
  --url <base>     relay base URL (env HANDLE_RELAY_URL, default ${DEFAULT_URL})
  --key <file>     key file (env HANDLE_RELAY_KEY_FILE, default ./${DEFAULT_KEY_FILE})
  --server <name>  server name to sign into a registration (default: asked from the relay)
  --since <seq>    inbox/listen: start after this sequence number
  --limit <n>      inbox: page size (1-500, default 100)
  --raw            send: the envelope is JSON, sent unencrypted as written
  --force          keygen: replace an existing key file (its handle is lost with it)
  --pins <file>    verify/safety/monitor: pinned keys and the last kept tree head
                   (default ./${DEFAULT_PINS_FILE})
  --accept         verify: pin a key that changed unexplained
  --watch <handle> monitor: a handle whose links to check (repeatable)
  --once           monitor: check once and exit
  --interval <ms>  monitor: time between heads (default 5000)
`;

class UsageError extends Error {}

/** Runs one CLI invocation; resolves to the process exit code (0 ok, 1 failed, 2 usage). */
export async function runCli(argv: readonly string[], io: CliIo): Promise<number> {
  try {
    // `pnpm cli -- <command>` hands the `--` on; after it every option would be a
    // positional, so a leading one is dropped.
    await dispatch(argv[0] === '--' ? argv.slice(1) : argv, io);
    return 0;
  } catch (err) {
    if (err instanceof UsageError) {
      io.stderr(`handle-relay: ${err.message}\n\n${USAGE}`);
      return 2;
    }
    if (err instanceof CheckFailed) {
      io.stderr(`handle-relay: ${err.message}\n`);
      return 1;
    }
    if (err instanceof RelayClientError) {
      io.stderr(`handle-relay: ${err.status} ${err.code}: ${err.message}\n`);
      return 1;
    }
    const { code, path: file } = err as NodeJS.ErrnoException;
    if (code === 'ENOENT' && file !== undefined) {
      io.stderr(`handle-relay: no such file: ${path.resolve(file)}\n`);
      return 1;
    }
    if (err instanceof Error && typeof file === 'string' && !path.isAbsolute(file)) {
      io.stderr(`handle-relay: ${err.message.replace(file, path.resolve(file))}\n`);
      return 1;
    }
    io.stderr(`handle-relay: ${err instanceof Error ? err.message : String(err)}\n`);
    return 1;
  }
}

/**
 * The package version, from the nearest handle-relay package.json above this file (src/cli
 * or dist/src/cli); not the service's reader, which would load its config stack.
 */
function cliVersion(): string {
  for (let dir = import.meta.dirname; ; dir = path.dirname(dir)) {
    try {
      const pkg = JSON.parse(readFileSync(path.join(dir, 'package.json'), 'utf8')) as {
        name?: string;
        version?: string;
      };
      if (pkg.name === 'handle-relay' && pkg.version) return pkg.version;
    } catch {
      // No package.json here: keep going up.
    }
    if (path.dirname(dir) === dir) return 'unknown';
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
        since: { type: 'string' },
        limit: { type: 'string' },
        raw: { type: 'boolean' },
        force: { type: 'boolean' },
        pins: { type: 'string' },
        accept: { type: 'boolean' },
        watch: { type: 'string', multiple: true },
        once: { type: 'boolean' },
        interval: { type: 'string' },
        help: { type: 'boolean', short: 'h' },
        version: { type: 'boolean', short: 'V' },
      },
    });
  } catch (err) {
    throw new UsageError((err as Error).message);
  }
  const { values, positionals } = parsed;
  const [command, ...args] = positionals;
  if (values.version) {
    io.stdout(`${cliVersion()}\n`);
    return;
  }
  if (values.help || command === 'help' || command === undefined) {
    io.stdout(USAGE);
    return;
  }
  // Absolute from here on, so every message names the file it means.
  const keyFile = path.resolve(values.key ?? io.env[CLI_ENV.keyFile] ?? DEFAULT_KEY_FILE);
  const client = new RelayClient({
    baseUrl: values.url ?? io.env[CLI_ENV.url] ?? DEFAULT_URL,
    fetch: io.fetch,
  });
  const print = (value: unknown) => io.stdout(`${JSON.stringify(value, null, 2)}\n`);

  switch (command) {
    case 'keygen': {
      expectArgs(args, 0, 'keygen');
      if (!values.force) {
        const existing = await readExistingKey(keyFile);
        if (existing) {
          io.stdout(`${primaryOf(existing.publicKey)}\n`);
          io.stderr(
            `handle-relay: ${keyFile} already holds a key; kept (keygen --force replaces it)\n`,
          );
          return;
        }
      } else {
        await fs.rm(keyFile, { force: true });
      }
      const keys = generateKeyPair();
      await writeKeyFile(keyFile, keys);
      io.stdout(`${primaryOf(keys.publicKey)}\nwrote ${keyFile}\n`);
      return;
    }
    case 'register': {
      const [handle] = expectArgs(args, 1, 'register <handle>');
      const keys = await readKeyFile(keyFile);
      const server = values.server ?? (await client.health()).server;
      try {
        print(await client.register(server, handle ?? '', keys));
      } catch (err) {
        // Run again (the README's chain twice), the handle is already this key's: say so.
        if (!(err instanceof RelayClientError && err.status === 409)) throw err;
        const owned = await client.byPrimary(primaryOf(keys.publicKey)).catch(() => undefined);
        if (!owned || owned.handle !== handle?.toLowerCase()) throw err;
        io.stderr(`handle-relay: ${owned.handle} is already registered to this key\n`);
        print(owned);
      }
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
    case 'send': {
      if (!values.raw) {
        const [to, text] = expectArgs(args, 2, 'send <handle> <text>');
        const sent = await sendText(client, to ?? '', text ?? '', await readKeyFile(keyFile));
        print(sent);
        if (sent.copy_error !== undefined) {
          io.stderr(
            `handle-relay: sent, but the copy for your other devices failed: ${sent.copy_error}\n`,
          );
        }
        return;
      }
      const [to, json = ''] = expectArgs(args, 2, 'send --raw <handle> <json>');
      try {
        JSON.parse(json);
      } catch {
        throw new UsageError('the envelope must be JSON');
      }
      // Sent as written: parsed and written again, 12345678901234567890 would arrive rounded.
      print(await client.sendJson(to ?? '', json));
      return;
    }
    case 'inbox': {
      const [handle] = expectArgs(args, 1, 'inbox <handle>');
      const keys = await readKeyFile(keyFile);
      const reader = await MessageReader.forHandle(client, handle ?? '', keys);
      const page = await client.inbox(handle ?? '', keys, {
        since: intOption(values.since, 'since'),
        limit: intOption(values.limit, 'limit'),
      });
      for (const message of page.messages) {
        io.stdout(`${JSON.stringify(await reader.line(message))}\n`);
      }
      if (page.has_more) {
        io.stderr(
          `handle-relay: more after seq ${page.next_since}: inbox --since ${page.next_since}\n`,
        );
      }
      return;
    }
    case 'listen': {
      const [handle] = expectArgs(args, 1, 'listen <handle>');
      const keys = await readKeyFile(keyFile);
      const reader = await MessageReader.forHandle(client, handle ?? '', keys);
      // Lines wait for their sender's name in turn, so they print in delivery order.
      let printed = Promise.resolve();
      await followInbox({
        baseUrl: values.url ?? io.env[CLI_ENV.url] ?? DEFAULT_URL,
        handle: handle ?? '',
        keys,
        since: intOption(values.since, 'since'),
        fetch: io.fetch,
        signal: io.signal ?? new AbortController().signal,
        onMessage: (m) => {
          printed = printed.then(async () =>
            io.stdout(`${JSON.stringify(await reader.line(m))}\n`),
          );
        },
        onEvent: (e) => {
          if (e.event === 'lagged') {
            io.stderr(`handle-relay: fell behind (${e.data}); resync with \`inbox\`\n`);
          }
        },
      });
      await printed;
      return;
    }
    default: {
      const known = await runTrustCommand(command, args, {
        client,
        keyFile,
        pinsFile: path.resolve(values.pins ?? DEFAULT_PINS_FILE),
        watch: values.watch ?? [],
        accept: values.accept ?? false,
        once: values.once ?? false,
        intervalMs: intOption(values.interval, 'interval') ?? 5000,
        signal: io.signal,
        stdout: io.stdout,
        stderr: io.stderr,
      });
      if (!known) throw new UsageError(`unknown command ${command}`);
    }
  }
}

/** The key in `file`, or undefined when there is no such file; a damaged file throws. */
async function readExistingKey(file: string) {
  try {
    return await readKeyFile(file);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw err;
  }
}

function intOption(value: string | undefined, name: string): number | undefined {
  if (value === undefined) return undefined;
  if (!/^\d+$/.test(value)) throw new UsageError(`--${name} must be a non-negative integer`);
  return Number(value);
}

function expectArgs(args: readonly string[], count: number, shape: string): readonly string[] {
  if (args.length !== count) throw new UsageError(`expected: ${shape}`);
  return args;
}
