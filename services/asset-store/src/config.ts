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
import { SERVICE_DIR } from './version.js';

/** Every asset-store setting with its default (contract, "Configuration defaults"). */
export const configSchema = z.object({
  storage_root: z.string().min(1).default('./data/assets'),
  admin_token: z.string().min(1).optional(),
  /** Without `admin_token`: the admin token kept in this file, written (random, 0600) when absent. */
  admin_token_file: z.string().min(1).optional(),
  api_token: z.string().min(1).optional(),
  enable_thumbnail_cache: z.boolean().default(true),
  thumbnail_cache_max_bytes: z.number().int().min(0).default(1_073_741_824),
  rebuild_error_threshold: z.number().int().min(0).default(10),
  verify_interval_hours: z.number().int().min(0).default(24),
  listen: listenAddress.default('127.0.0.1:8080'),
  database_url: z
    .string()
    .regex(/^postgres(ql)?:\/\//, 'expected a postgres:// URL')
    .optional(),
  max_upload_bytes: z.number().int().min(0).default(1_073_741_824),
  max_json_bytes: z.number().int().min(1).default(16_777_216),
  /** Unfinished (and finished, for their `Asset-Hash`) resumable uploads are kept this long. */
  upload_expiry_hours: z.number().positive().max(8760).default(24),
  trust_proxy: trustProxySetting.default(false),
  max_connections_per_address: z.number().int().min(0).default(256),
  min_body_bytes_per_second: z.number().int().min(0).default(1024),
  // The web console at /console/ (issue 26); false leaves the path unrouted (404).
  console: z.boolean().default(true),
  log_level: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  /** `auto`: readable lines when stdout is a terminal, JSON lines otherwise. */
  log_format: z.enum(['auto', 'json', 'pretty']).default('auto'),
  /** Where asset contents live (contract: object storage): `storage_root`, or an S3 bucket. */
  storage_backend: z.enum(['fs', 's3']).default('fs'),
  /** Required with `storage_backend: s3`; created when absent. */
  s3_bucket: z.string().min(1).optional(),
  s3_prefix: z.string().default(''),
  /** Unset: AWS. */
  s3_endpoint: z.string().url().optional(),
  s3_region: z.string().min(1).default('us-east-1'),
  s3_force_path_style: z.boolean().default(false),
  s3_watch_seconds: z.number().int().min(1).default(60),
  /** An S3 call whose connection stays silent this long fails (docs/storage.md, timeouts). */
  s3_timeout_seconds: z.number().positive().max(3600).default(20),
  /** On S3, downloads answer 307 to a short-lived presigned GET of the object. */
  s3_download_redirect: z.boolean().default(false),
  /** Change feed events are kept this long; an older cursor is answered 410 (docs/changes.md). */
  changes_retention_days: z.number().positive().max(36_500).default(30),
  /** A webhook delivery that keeps failing is retried, with backoff, for this long. */
  webhook_retry_hours: z.number().positive().max(8760).default(24),
  /** Webhook URLs may point at private, loopback and link-local addresses (tests, one LAN). */
  webhook_allow_private: z.boolean().default(false),
  /** The first retry of a failed webhook delivery after this long; each next one doubles (to 1 h). */
  webhook_retry_first_seconds: z.number().positive().max(30).default(5),
});

/** The validated, frozen asset-store configuration. */
export type Config = Readonly<z.infer<typeof configSchema>>;

/** Reads the configuration from the command line, `config.yaml`, `.env` files and `ASSET_STORE_*`. */
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
    prefix: 'ASSET_STORE',
    pathKeys: ['storage_root', 'admin_token_file'],
    foreignEnv: Object.values(CLI_ENV),
  });
  // A rule across keys, after the per-key pass (the loader takes a plain object schema).
  if (config.storage_backend === 's3' && config.s3_bucket === undefined) {
    throw new ConfigError(['s3_bucket: required when storage_backend is s3']);
  }
  return config;
}
