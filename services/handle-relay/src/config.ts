import fs from 'node:fs';
import path from 'node:path';
import {
  ConfigError,
  configSource,
  listenAddress,
  loadConfig,
  trustProxySetting,
} from '@svc/config';
import { z } from 'zod';
import { CLI_ENV } from './cli/cli-env.js';
import { settingProblems } from './errors.js';
import { SERVICE_DIR } from './version.js';

/** Every handle-relay setting with its default (contract, "Settings defaults"). */
export const configSchema = z.object({
  bind: listenAddress.default('127.0.0.1:8081'),
  db: z.string().min(1).default('./data/handle-relay'),
  server: z
    .string()
    .regex(/^[A-Za-z0-9.-]+(:\d+)?$/, 'expected a host name')
    .default('localhost'),
  sig_server_url: z.url({ protocol: /^https?$/ }).default('http://localhost:8090'),
  web_dir: z.string().min(1).optional(),
  spec_base: z.url({ protocol: /^https?$/ }).default('https://handle-relay.org/spec'),
  message_retention_days: z.number().min(0).default(30),
  vapid_key_path: z.string().min(1).default('./data/vapid.json'),
  /** The transparency log's Ed25519 signing key, created on first run like the VAPID key. */
  log_key_path: z.string().min(1).default('./data/log-key.json'),
  vapid_subject: z
    .string()
    .regex(/^(mailto:|https:\/\/)/, 'expected a mailto: or https:// URL')
    .optional(),
  push_allow_private_endpoints: z.boolean().default(false),
  rate_limit_per_minute: z.number().int().min(0).default(600),
  trust_proxy: trustProxySetting.default(false),
  max_connections_per_address: z.number().int().min(0).default(256),
  min_body_bytes_per_second: z.number().int().min(0).default(1024),
  /** How instances hear of each other's sends: LISTEN/NOTIFY, or NATS at `nats_url`. */
  pubsub: z.enum(['postgres', 'nats']).default('postgres'),
  nats_url: z.string().min(1).default('nats://127.0.0.1:4222'),
  log_level: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  /** `auto`: readable lines when stdout is a terminal, JSON lines otherwise. */
  log_format: z.enum(['auto', 'json', 'pretty']).default('auto'),
});

/** The validated, frozen handle-relay configuration. */
export type Config = Readonly<z.infer<typeof configSchema>>;

/** Reads the configuration from the command line, `config.yaml`, `.env` files and `HANDLE_RELAY_*`. */
export function readConfig(
  args: readonly string[],
  env: NodeJS.ProcessEnv,
  envFiles: readonly string[] = [],
): Config {
  const { file, fileMustExist, argv } = configSource(args, path.join(SERVICE_DIR, 'config.yaml'));
  const config = loadConfig(configSchema, {
    file,
    fileMustExist,
    envFiles,
    env,
    argv,
    prefix: 'HANDLE_RELAY',
    pathKeys: ['db', 'web_dir', 'vapid_key_path', 'log_key_path'],
    // The bundled CLI's own variables: a shell set up for the CLI must still start the server.
    foreignEnv: Object.values(CLI_ENV),
  });
  if (config.web_dir !== undefined) checkWebDir(config.web_dir);
  if (config.pubsub === 'nats' && !/^postgres(ql)?:\/\//i.test(config.db)) {
    throw new ConfigError([settingProblems.natsWithoutServer()]);
  }
  return config;
}

/** A `web_dir` that cannot serve the app stops start-up, rather than a 500 at `/` later. */
function checkWebDir(dir: string): void {
  if (!fs.statSync(dir, { throwIfNoEntry: false })?.isDirectory()) {
    throw new ConfigError([settingProblems.webDirNotAFolder(dir)]);
  }
  if (!fs.statSync(path.join(dir, 'index.html'), { throwIfNoEntry: false })?.isFile()) {
    throw new ConfigError([settingProblems.webDirWithoutIndex(dir)]);
  }
}
