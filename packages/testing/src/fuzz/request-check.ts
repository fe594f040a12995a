import { text } from './fuzz-http.js';
import type { FuzzRequest, Parameter } from './fuzz-request.js';
import type { JsonSchema } from './schema-arbitrary.js';

/** Validates a value against a schema of the document. */
export type SchemaCheck = (schema: JsonSchema, value: unknown) => boolean;

/** A URL or header value as the schema sees it: numbers and booleans parsed from the text. */
function typed(value: string, schema: JsonSchema | undefined): unknown {
  const type = typeof schema === 'object' ? schema.type : undefined;
  if ((type === 'integer' || type === 'number') && /^-?\d+(\.\d+)?([eE][-+]?\d+)?$/.test(value)) {
    return Number(value);
  }
  if (type === 'boolean' && (value === 'true' || value === 'false')) return value === 'true';
  return value;
}

/** The values of a parameter as the service receives them (none, one, or repeated). */
function received(req: FuzzRequest, p: Parameter): string[] {
  if (p.in === 'path') return p.name in req.path ? [text(req.path[p.name])] : [];
  if (p.in === 'header') {
    const name = Object.keys(req.headers).find((h) => h.toLowerCase() === p.name.toLowerCase());
    return name === undefined ? [] : [req.headers[name]!];
  }
  if (p.in !== 'query' || !(p.name in req.query)) return [];
  const value = req.query[p.name];
  // An object goes as `name[key]=…`: another parameter, not this one.
  if (value === undefined || (value && typeof value === 'object' && !Array.isArray(value))) {
    return [];
  }
  return Array.isArray(value) ? value.map(text) : [text(value)];
}

/** A form's fields as the schema sees them: text, files as a string. */
function formFields(value: unknown): unknown {
  if (!value || typeof value !== 'object' || Array.isArray(value)) return value;
  const field = (v: unknown): unknown => (Buffer.isBuffer(v) ? '' : text(v));
  // An array goes as one part per item: none is no field, one is a plain field.
  const parts = (v: unknown): unknown[] => (v === undefined ? [] : Array.isArray(v) ? v : [v]);
  return Object.fromEntries(
    Object.entries(value)
      .map(([k, v]) => [k, parts(v).map(field)] as const)
      .filter(([, v]) => v.length > 0)
      .map(([k, v]) => [k, v.length === 1 ? v[0] : v]),
  );
}

/**
 * Why the document refuses this request, or undefined when it allows it (credentials
 * aside). A request it refuses must not be answered with a success.
 */
export function refusal(req: FuzzRequest, check: SchemaCheck): string | undefined {
  const op = req.operation;
  for (const p of op.parameters) {
    if (p.in === 'cookie') continue;
    const values = received(req, p);
    if (values.length === 0) {
      if (p.required || p.in === 'path') return `no ${p.in} ${p.name}`;
      continue;
    }
    if (values.length > 1) return `${p.in} ${p.name} repeated`;
    if (p.in === 'path' && values[0] === '') return `empty path ${p.name}`;
    if (!check(p.schema ?? true, typed(values[0]!, p.schema))) return `${p.in} ${p.name}`;
  }
  if (!op.body) return undefined;
  const body = req.body;
  if (!body || ('value' in body && body.value === undefined)) {
    return op.body.required ? 'no body' : undefined;
  }
  if ('raw' in body || body.type !== op.body.type) return `a ${body.type} body`;
  // Raw bytes (a type other than JSON or a form) are whatever the operation makes of them.
  if (!body.type.includes('json') && !body.type.startsWith('multipart/')) return undefined;
  const value = body.type.startsWith('multipart/') ? formFields(body.value) : body.value;
  return check(op.body.schema, value) ? undefined : 'body';
}
