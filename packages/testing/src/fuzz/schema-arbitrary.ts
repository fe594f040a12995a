// Hand-written: the one JSON-Schema-to-fast-check package on npm (json-schema-fast-check
// 0.0.6) is built on fast-check 1 and faker 4; this covers the subset our documents use.
import fc from 'fast-check';

/** A JSON Schema (2020-12, as OpenAPI 3.1 embeds it). */
export type JsonSchema = { [key: string]: unknown } | boolean;

/** Where `$ref`s resolve, and values worth trying for a property or parameter by name. */
export interface SchemaContext {
  resolve(ref: string): JsonSchema;
  examples?: Readonly<Record<string, readonly unknown[]>>;
}

/** How long generated free strings and arrays get in the valid branch: enough to vary. */
const FREE_STRING_MAX = 40;
const FREE_ARRAY_MAX = 4;

/** Drops `(?!…)`/`(?=…)` groups, which fast-check's `stringMatching` cannot generate from. */
function withoutLookarounds(pattern: string): string {
  let out = '';
  for (let i = 0; i < pattern.length; i++) {
    if (pattern.startsWith('(?!', i) || pattern.startsWith('(?=', i)) {
      let depth = 0;
      for (; i < pattern.length; i++) {
        if (pattern[i] === '\\') i++;
        else if (pattern[i] === '(') depth++;
        else if (pattern[i] === ')' && --depth === 0) break;
      }
      continue;
    }
    out += pattern[i];
  }
  return out;
}

function patternString(pattern: string): fc.Arbitrary<string> {
  const full = new RegExp(pattern, 'u');
  const generating = withoutLookarounds(pattern);
  const arb = fc.stringMatching(new RegExp(generating, 'u'));
  return generating === pattern ? arb : arb.filter((s) => full.test(s));
}

function stringFor(s: Record<string, unknown>): fc.Arbitrary<unknown> {
  const min = typeof s.minLength === 'number' ? s.minLength : 0;
  const max = typeof s.maxLength === 'number' ? s.maxLength : Infinity;
  const fits = (v: string) => [...v].length >= min && [...v].length <= max;
  if (s.format === 'binary') return fc.uint8Array({ maxLength: 64 }).map((a) => Buffer.from(a));
  if (s.format === 'date-time') {
    return fc
      .date({ min: new Date(0), max: new Date(4e12), noInvalidDate: true })
      .map((d) => d.toISOString());
  }
  if (typeof s.pattern === 'string') return patternString(s.pattern).filter(fits);
  if (s.format === 'uri') return fc.webUrl({ withQueryParameters: true }).filter(fits);
  if (s.format === 'uuid') return fc.uuid().filter(fits);
  const text = fc.oneof(
    fc.string({ maxLength: FREE_STRING_MAX }),
    fc.string({ maxLength: FREE_STRING_MAX, unit: 'grapheme' }),
  );
  return text.filter(fits);
}

function integerFor(s: Record<string, unknown>): fc.Arbitrary<number> {
  // Unbounded sides reach JSON's exact integers, so a missing maximum shows.
  const lo = typeof s.minimum === 'number' ? s.minimum : Number.MIN_SAFE_INTEGER;
  const hi = typeof s.maximum === 'number' ? s.maximum : Number.MAX_SAFE_INTEGER;
  return fc.oneof(
    fc.constantFrom(lo, hi),
    fc.integer({ min: lo, max: Math.min(hi, lo + 1000, 2 ** 31 - 1) }),
    fc.maxSafeInteger().filter((n) => n >= lo && n <= hi),
  );
}

function objectFor(s: Record<string, unknown>, ctx: SchemaContext): fc.Arbitrary<unknown> {
  const properties = (s.properties ?? {}) as Record<string, JsonSchema>;
  const required = new Set((s.required ?? []) as string[]);
  const record: Record<string, fc.Arbitrary<unknown>> = {};
  for (const [name, schema] of Object.entries(properties)) {
    // `not` marks a property the valid branch leaves out.
    if (typeof schema === 'object' && 'not' in schema && !required.has(name)) continue;
    record[name] = valueFor(schema, ctx, name);
  }
  const keys = Object.keys(record).filter((k) => required.has(k));
  return fc.record(record, { requiredKeys: keys });
}

/** Values the schema accepts (the subset of JSON Schema the services' documents use). */
export function valueFor(
  schema: JsonSchema,
  ctx: SchemaContext,
  name?: string,
): fc.Arbitrary<unknown> {
  const fromSchema = schemaValue(schema, ctx);
  const examples = name === undefined ? undefined : ctx.examples?.[name];
  if (!examples?.length) return fromSchema;
  return fc.oneof({ weight: 3, arbitrary: fc.constantFrom(...examples) }, fromSchema);
}

function schemaValue(schema: JsonSchema, ctx: SchemaContext): fc.Arbitrary<unknown> {
  if (schema === true) return fc.jsonValue({ maxDepth: 2 });
  if (schema === false) return fc.constant(undefined);
  if (typeof schema.$ref === 'string') return valueFor(ctx.resolve(schema.$ref), ctx);
  if ('const' in schema) return fc.constant(schema.const);
  if (Array.isArray(schema.enum)) return fc.constantFrom(...(schema.enum as unknown[]));
  for (const key of ['oneOf', 'anyOf'] as const) {
    const branches = schema[key];
    if (Array.isArray(branches)) {
      return fc.oneof(...branches.map((b) => valueFor(b as JsonSchema, ctx)));
    }
  }
  const type = Array.isArray(schema.type) ? (schema.type[0] as unknown) : schema.type;
  switch (type) {
    case 'string':
      return stringFor(schema);
    case 'integer':
      return integerFor(schema);
    case 'number':
      return fc.double({ noNaN: true, noDefaultInfinity: true });
    case 'boolean':
      return fc.boolean();
    case 'null':
      return fc.constant(null);
    case 'array': {
      const items = (schema.items ?? true) as JsonSchema;
      const max = typeof schema.maxItems === 'number' ? schema.maxItems : FREE_ARRAY_MAX;
      const min = typeof schema.minItems === 'number' ? schema.minItems : 0;
      return fc.array(valueFor(items, ctx), {
        minLength: min,
        maxLength: Math.max(min, Math.min(max, FREE_ARRAY_MAX)),
      });
    }
    case 'object':
      return objectFor(schema, ctx);
    default:
      return schema.properties ? objectFor(schema, ctx) : fc.jsonValue({ maxDepth: 2 });
  }
}
