import fs from 'node:fs';
import path from 'node:path';
import { parseEnv } from 'node:util';
import yaml from 'js-yaml';
import { z } from 'zod';

/** Raised when the configuration cannot be used; `message` is one line naming every bad key. */
export class ConfigError extends Error {
  constructor(readonly problems: readonly string[]) {
    // One line whatever the problems contain, so a supervisor's log shows it whole.
    super(`invalid configuration: ${problems.join('; ').replace(/\s*[\r\n]+\s*/g, ' ')}`);
    this.name = 'ConfigError';
  }
}

/** Where the layers come from; later layers win: defaults < file < .env files < env < argv. */
export interface LoadConfigOptions {
  /** YAML file; a missing file is fine and leaves the defaults, unless `fileMustExist`. */
  file?: string;
  /** The operator named `file`: its absence is a problem (a typo must not start on defaults). */
  fileMustExist?: boolean;
  /**
   * `.env` files (`NAME=value` lines, Node's own parser), later winning; a missing one is
   * fine. Their variables count as the environment's, below the real environment.
   */
  envFiles?: readonly string[];
  env?: NodeJS.ProcessEnv;
  /** Flags only (`--key=value`, `--key value`, `--flag`); dashes and underscores are the same. */
  argv?: readonly string[];
  /** Environment prefix without the trailing underscore, e.g. `ASSET_STORE`. */
  prefix: string;
  /** Keys holding file system paths; relative values resolve against the config file's folder. */
  pathKeys?: readonly string[];
  /** Names under the prefix that belong to another program (a client CLI), not settings. */
  foreignEnv?: readonly string[];
}

type Shape = z.ZodRawShape;
type Kind = 'string' | 'number' | 'boolean' | 'other';

/** The scalar type under optional/default/nullable wrappers, so env and flag strings can be coerced. */
function kindOf(schema: z.ZodType): Kind {
  let current: z.ZodType = schema;
  for (;;) {
    const def = current._zod.def as { type: string; innerType?: z.ZodType };
    if (def.innerType && ['optional', 'default', 'nullable', 'prefault'].includes(def.type)) {
      current = def.innerType;
      continue;
    }
    if (def.type === 'string' || def.type === 'number' || def.type === 'boolean') return def.type;
    return 'other';
  }
}

function coerce(kind: Kind, raw: string): unknown {
  if (kind === 'number') {
    // Left as text when it is no number, so the error says "expected number, received string".
    const n = Number(raw);
    return raw.trim() === '' || Number.isNaN(n) ? raw : n;
  }
  if (kind === 'boolean') {
    const v = raw.trim().toLowerCase();
    if (['true', '1', 'yes', 'on'].includes(v)) return true;
    if (['false', '0', 'no', 'off'].includes(v)) return false;
    return raw;
  }
  return raw;
}

function readFileLayer(
  file: string | undefined,
  mustExist: boolean,
  problems: string[],
): Record<string, unknown> {
  if (!file) return {};
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') {
      if (mustExist) {
        problems.push(`${file}: no such file (a config file named on the command line must exist)`);
      }
      return {};
    }
    const reason = err instanceof Error ? err.message : String(err);
    problems.push(`${file}: cannot be read (${reason})`);
    return {};
  }
  let parsed: unknown;
  try {
    parsed = yaml.load(text);
  } catch (err) {
    const reason = err instanceof Error ? err.message.split('\n')[0] : String(err);
    problems.push(`${file}: not valid YAML (${reason})`);
    return {};
  }
  if (parsed === undefined || parsed === null) return {};
  if (typeof parsed !== 'object' || Array.isArray(parsed)) {
    problems.push(`${file}: expected a mapping of keys to values`);
    return {};
  }
  return parsed as Record<string, unknown>;
}

function readEnvFiles(files: readonly string[], problems: string[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const file of files) {
    let text: string;
    try {
      text = fs.readFileSync(file, 'utf8');
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') continue;
      const reason = err instanceof Error ? err.message : String(err);
      problems.push(`${file}: cannot be read (${reason})`);
      continue;
    }
    Object.assign(out, parseEnv(text));
  }
  return out;
}

function readEnvLayer(
  shape: Shape,
  env: NodeJS.ProcessEnv,
  prefix: string,
  foreign: readonly string[],
  problems: string[],
): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  const start = `${prefix}_`;
  for (const [name, value] of Object.entries(env)) {
    if (!name.startsWith(start) || value === undefined || foreign.includes(name)) continue;
    const key = name.slice(start.length).toLowerCase();
    const field = shape[key];
    if (!field) {
      problems.push(`${name}: unknown setting`);
      continue;
    }
    out[key] = coerce(kindOf(field as z.ZodType), value);
  }
  return out;
}

function readArgvLayer(
  shape: Shape,
  argv: readonly string[],
  problems: string[],
): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] ?? '';
    if (!arg.startsWith('--')) {
      problems.push(`${arg}: unexpected argument (flags look like --key=value)`);
      continue;
    }
    const eq = arg.indexOf('=');
    const flag = eq === -1 ? arg.slice(2) : arg.slice(2, eq);
    const key = flag.replaceAll('-', '_');
    const field = shape[key];
    if (!field) {
      problems.push(`--${flag}: unknown flag`);
      continue;
    }
    const kind = kindOf(field as z.ZodType);
    const next = argv[i + 1];
    const nextIsValue = next !== undefined && !next.startsWith('--');
    let raw: string;
    if (eq !== -1) raw = arg.slice(eq + 1);
    else if (kind === 'boolean' && !nextIsValue) raw = 'true';
    else if (nextIsValue) {
      raw = next;
      i++;
    } else {
      problems.push(`--${flag}: expected a value`);
      continue;
    }
    out[key] = coerce(kind, raw);
  }
  return out;
}

function describeIssue(issue: z.core.$ZodIssue): string {
  const key = issue.path.map(String).join('.');
  if (issue.code === 'unrecognized_keys') {
    return issue.keys.map((k) => `${key ? `${key}.` : ''}${k}: unknown key`).join('; ');
  }
  if (!key) return `(root): ${issue.message}`;
  return `${key}: ${issue.message}`;
}

function deepFreeze<T>(value: T): T {
  if (value && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const v of Object.values(value)) deepFreeze(v);
  }
  return value;
}

/**
 * Loads a service's configuration: defaults < YAML file < `.env` files < environment < flags,
 * validated
 * in one pass against a strict zod object schema; every problem is reported together.
 */
export function loadConfig<S extends Shape>(
  schema: z.ZodObject<S>,
  options: LoadConfigOptions,
): Readonly<z.infer<z.ZodObject<S>>> {
  const problems: string[] = [];
  const shape = schema.shape;
  const merged = {
    ...readFileLayer(options.file, options.fileMustExist ?? false, problems),
    ...readEnvLayer(
      shape,
      { ...readEnvFiles(options.envFiles ?? [], problems), ...options.env },
      options.prefix,
      options.foreignEnv ?? [],
      problems,
    ),
    ...readArgvLayer(shape, options.argv ?? [], problems),
  };
  const result = schema.strict().safeParse(merged);
  if (!result.success) problems.push(...result.error.issues.map(describeIssue));
  if (problems.length > 0 || !result.success) throw new ConfigError(problems);

  const baseDir = options.file ? path.dirname(path.resolve(options.file)) : process.cwd();
  const data: Record<string, unknown> = { ...result.data };
  for (const key of options.pathKeys ?? []) {
    const value = data[key];
    if (typeof value === 'string' && !/^[a-z][a-z0-9+.-]*:\/\//i.test(value)) {
      data[key] = path.resolve(baseDir, value);
    }
  }
  return deepFreeze(data) as Readonly<z.infer<z.ZodObject<S>>>;
}

/** Parses `host:port` (IPv6 hosts in brackets) for `listen`/`bind` settings. */
export const listenAddress = z
  .string()
  .regex(/^(\[[0-9a-fA-F:]+\]|[^:\s]+):\d{1,5}$/, 'expected host:port, e.g. 127.0.0.1:8080')
  .refine((v) => Number(v.slice(v.lastIndexOf(':') + 1)) <= 65535, 'port must be 0-65535');

/** Splits a validated `host:port` into its parts. */
export function splitListen(value: string): { host: string; port: number } {
  const at = value.lastIndexOf(':');
  return { host: value.slice(0, at).replace(/^\[|\]$/g, ''), port: Number(value.slice(at + 1)) };
}

/**
 * The `.env` files a service reads, later winning: the one in its own folder, then the one in
 * the directory the user ran the command in (`INIT_CWD` under pnpm), when that is another.
 */
export function envFilesOf(
  serviceDir: string,
  cwd: string = process.env.INIT_CWD ?? process.cwd(),
): string[] {
  const own = path.join(serviceDir, '.env');
  const here = path.resolve(cwd, '.env');
  return here === own ? [own] : [own, here];
}

/**
 * Splits a command line into the config file (an optional first positional argument,
 * else `defaultFile`) and the flags. A relative path is taken from the directory the
 * user ran the command in (`INIT_CWD` under pnpm), not the package folder. Only the
 * default file may be absent: a file the operator named must exist (`fileMustExist`).
 */
export function configSource(
  args: readonly string[],
  defaultFile: string,
  cwd: string = process.env.INIT_CWD ?? process.cwd(),
): { file: string; fileMustExist: boolean; argv: string[] } {
  const [first, ...rest] = args;
  if (first !== undefined && !first.startsWith('--')) {
    return { file: path.resolve(cwd, first), fileMustExist: true, argv: rest };
  }
  return { file: defaultFile, fileMustExist: false, argv: [...args] };
}
