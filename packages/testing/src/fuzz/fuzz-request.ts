import fc from 'fast-check';
import { valueFor, type JsonSchema, type SchemaContext } from './schema-arbitrary.js';

/** One operation of the document, as the fuzzer drives it. */
export interface FuzzOperation {
  method: string;
  template: string;
  /** `METHOD template`, as skip lists name it. */
  key: string;
  parameters: Parameter[];
  body?: { type: string; schema: JsonSchema; required: boolean };
  /** Security alternatives: scheme names each needs; an empty one means open. */
  security: string[][];
  responses: Record<string, { content?: Record<string, { schema?: JsonSchema }> }>;
}

/** An OpenAPI parameter (path, query or header). */
export interface Parameter {
  name: string;
  in: string;
  required?: boolean;
  schema?: JsonSchema;
}

/** A request before it is sent: mutations edit it, hooks sign it. */
export interface FuzzRequest {
  operation: FuzzOperation;
  path: Record<string, unknown>;
  query: Record<string, unknown>;
  headers: Record<string, string>;
  /** JSON value, multipart fields (Buffer: a file part), raw bytes, or absent. */
  body?: { type: string; value: unknown } | { type: string; raw: Buffer };
  /** What was done to it, for the failure message. */
  mutation?: string;
}

/** Strings services meet in the wild: empty, NUL, lone surrogates, escapes, numbers-as-text. */
export const ODD_STRINGS = [
  '',
  ' ',
  '\u0000',
  '\ud800',
  'a\udc00b',
  '%',
  '%zz',
  '%E0%A4%A',
  '../../etc/passwd',
  '😀'.repeat(50),
  'a\r\nb',
  '9'.repeat(40),
  '-1',
  '1e400',
  '0x10',
  'true',
  'null',
  '[]',
  '{}',
  'ﬁ\u0301\u202e',
  'K',
];

/** Long values: past most field limits, and in a body past the body limits (over 1 MiB). */
const huge = (sizes: number[]) =>
  fc
    .constantFrom(...sizes)
    .chain((n) => fc.constantFrom('x', 'é', '😀', '0').map((c) => c.repeat(n)));
/** In a path or query: long, yet under Node's 16 KiB of request head (past it: 431). */
const HUGE_IN_URL = huge([300, 1_200]);
const HUGE_IN_BODY = huge([2_000, 70_000, 1_100_000]);

const WRONG_TYPES: unknown[] = [0, -1, 1.5, 2 ** 53 + 2, true, null, [], ['a'], {}, { a: 1 }, 'x'];

/** The arbitrary of valid requests for `op`: every value from the document's schemas. */
export function validRequest(op: FuzzOperation, ctx: SchemaContext): fc.Arbitrary<FuzzRequest> {
  const part = (where: string) => {
    const record: Record<string, fc.Arbitrary<unknown>> = {};
    const required: string[] = [];
    for (const p of op.parameters.filter((x) => x.in === where)) {
      record[p.name] = valueFor(p.schema ?? { type: 'string' }, ctx, p.name);
      if (p.required || where === 'path') required.push(p.name);
    }
    return fc.record(record, { requiredKeys: required });
  };
  const body = op.body
    ? valueFor(op.body.schema, ctx).map((value) => ({ type: op.body!.type, value }))
    : fc.constant(undefined);
  return fc
    .record({ path: part('path'), query: part('query'), headers: part('header'), body })
    .map(({ path, query, headers, body }) => ({
      operation: op,
      path,
      query,
      headers: Object.fromEntries(Object.entries(headers).map(([k, v]) => [k, String(v)])),
      ...(body ? { body } : {}),
    }));
}

/** A field of the request that a mutation may touch. */
type Slot = { where: 'path' | 'query' | 'headers' | 'body'; name: string };

function slots(req: FuzzRequest): Slot[] {
  const out: Slot[] = [];
  for (const where of ['path', 'query', 'headers'] as const) {
    for (const name of Object.keys(req[where])) out.push({ where, name });
  }
  const value = req.body && 'value' in req.body ? req.body.value : undefined;
  if (value && typeof value === 'object' && !Array.isArray(value)) {
    for (const name of Object.keys(value)) out.push({ where: 'body', name });
  }
  return out;
}

function set(req: FuzzRequest, slot: Slot, value: unknown, mutation: string): FuzzRequest {
  if (slot.where === 'body') {
    const body = req.body as { type: string; value: Record<string, unknown> };
    const next = { ...body.value };
    if (value === undefined) delete next[slot.name];
    else next[slot.name] = value;
    return { ...req, body: { type: body.type, value: next }, mutation };
  }
  const next: Record<string, unknown> = { ...req[slot.where] };
  if (value === undefined) delete next[slot.name];
  else if (slot.where !== 'headers') next[slot.name] = value;
  else next[slot.name] = typeof value === 'string' ? value : JSON.stringify(value);
  return { ...req, [slot.where]: next, mutation };
}

/** Broken bodies: not JSON, truncated JSON, the wrong type, a broken multipart. */
const BROKEN_BODIES: { type: string; raw: string }[] = [
  { type: 'application/json', raw: '{"a":' },
  { type: 'application/json', raw: 'not json' },
  { type: 'application/json', raw: '[1,2' },
  { type: 'application/json', raw: '"\\ud800"' },
  { type: 'application/json', raw: `${'['.repeat(5000)}${']'.repeat(5000)}` },
  { type: 'application/json; charset=latin1', raw: '{}' },
  { type: 'text/plain', raw: 'hello' },
  {
    type: 'multipart/form-data; boundary=B',
    raw: '--B\r\nContent-Disposition: form-data; name="file"',
  },
  { type: 'multipart/form-data', raw: '--B\r\n\r\n' },
  { type: 'multipart/form-data; boundary=B', raw: 'garbage' },
  { type: 'application/x-www-form-urlencoded', raw: 'a=1&b=%zz' },
];

/** One mutation of a valid request: wrong types, missing and extra fields, odd and huge values. */
export function mutated(valid: FuzzRequest): fc.Arbitrary<FuzzRequest> {
  const all = slots(valid);
  const queryNames = Object.keys(valid.query);
  const someSlot = all.length ? fc.constantFrom(...all) : fc.constant(undefined);
  // A path without its parameter is another URL, perhaps another operation (`/jobs/` is the
  // job list), not this operation missing a field; only the other slots go missing.
  const droppable = all.filter((slot) => slot.where !== 'path');
  const droppableSlot = droppable.length ? fc.constantFrom(...droppable) : fc.constant(undefined);
  const extraSlot = fc
    .constantFrom<Slot['where']>('query', 'headers', 'body')
    .map((where): Slot => ({ where, name: where === 'headers' ? 'x-fuzz-extra' : 'fuzz_extra' }));
  const odd = fc.oneof(
    fc.constantFrom(...ODD_STRINGS),
    fc.string({ unit: 'binary', maxLength: 30 }),
  );
  return fc.oneof(
    fc
      .tuple(someSlot, fc.constantFrom(...WRONG_TYPES))
      .map(([slot, v]) =>
        slot ? set(valid, slot, v, `wrong type for ${slot.where}.${slot.name}`) : valid,
      ),
    droppableSlot.map((slot) =>
      slot ? set(valid, slot, undefined, `missing ${slot.where}.${slot.name}`) : valid,
    ),
    fc
      .tuple(extraSlot, odd)
      .map(([slot, v]) =>
        slot.where === 'body' && !(valid.body && 'value' in valid.body)
          ? valid
          : set(valid, slot, v, `extra ${slot.where}.${slot.name}`),
      ),
    fc
      .tuple(someSlot, odd)
      .map(([slot, v]) => (slot ? set(valid, slot, v, `odd ${slot.where}.${slot.name}`) : valid)),
    fc.tuple(someSlot, HUGE_IN_URL, HUGE_IN_BODY).map(([slot, inUrl, inBody]) => {
      if (!slot || slot.where === 'headers') return valid;
      const v = slot.where === 'body' ? inBody : inUrl;
      return set(valid, slot, v, `huge ${slot.where}.${slot.name} (${v.length})`);
    }),
    fc.constantFrom(...BROKEN_BODIES).map((b) => ({
      ...valid,
      body: { type: b.type, raw: Buffer.from(b.raw) },
      mutation: `broken body ${b.type}: ${b.raw.slice(0, 30)}`,
    })),
    fc.constant({ ...valid, body: undefined, mutation: 'no body' }),
    queryNames.length
      ? fc.constantFrom(...queryNames).map((name) => ({
          ...valid,
          query: { ...valid.query, [name]: [valid.query[name], valid.query[name]] },
          mutation: `query ${name} twice`,
        }))
      : fc.constant(valid),
  );
}
