import type { FuzzOperation, Parameter } from './fuzz-request.js';
import type { JsonSchema } from './schema-arbitrary.js';

/** The parts of an OpenAPI 3.1 document the fuzzer reads. */
export type Doc = {
  paths: Record<string, Record<string, unknown>>;
  security?: Record<string, string[]>[];
  components?: { securitySchemes?: Record<string, { type: string; in?: string; name?: string }> };
};

const METHODS = ['get', 'put', 'post', 'delete', 'patch', 'head', 'options'];
/** Bodies written from their schema; any other type goes as raw bytes. */
const BODY_TYPES = ['application/json', 'multipart/form-data'];

/** Every operation of the document the fuzzer can express; the others go to `skipped`. */
export function operationsOf(doc: Doc, skipped: Record<string, string>): FuzzOperation[] {
  const ops: FuzzOperation[] = [];
  for (const [template, item] of Object.entries(doc.paths)) {
    const shared = (item.parameters ?? []) as Parameter[];
    for (const method of METHODS) {
      const raw = item[method] as Record<string, unknown> | undefined;
      if (!raw) continue;
      const key = `${method.toUpperCase()} ${template}`;
      const content = (raw.requestBody as { content?: Record<string, { schema?: JsonSchema }> })
        ?.content;
      let body: FuzzOperation['body'];
      if (content) {
        // JSON or a form from its schema; any other type as raw bytes (tus's PATCH, say).
        const type = BODY_TYPES.find((t) => t in content) ?? Object.keys(content)[0];
        if (!type) {
          skipped[key] = 'a request body without a content type';
          continue;
        }
        const required = Boolean((raw.requestBody as { required?: boolean }).required);
        const schema = BODY_TYPES.includes(type)
          ? (content[type]?.schema ?? true)
          : { type: 'string', format: 'binary' };
        body = { type, schema, required };
      }
      const security = (raw.security ?? doc.security ?? []) as Record<string, string[]>[];
      ops.push({
        method: method.toUpperCase(),
        template,
        key,
        parameters: [...shared, ...((raw.parameters ?? []) as Parameter[])],
        body,
        security: security.map((alternative) => Object.keys(alternative)),
        responses: raw.responses as FuzzOperation['responses'],
      });
    }
  }
  return ops;
}

/** A schema taken out of the document, its local `$ref`s pointing back into it. */
export function inDocument(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(inDocument);
  if (!node || typeof node !== 'object') return node;
  return Object.fromEntries(
    Object.entries(node).map(([k, v]) => [
      k,
      k === '$ref' && typeof v === 'string' && v.startsWith('#') ? `openapi${v}` : inDocument(v),
    ]),
  );
}

/** A JSON pointer's segments, escaped. */
export function pointer(...segments: string[]): string {
  return segments.map((s) => s.replace(/~/g, '~0').replace(/\//g, '~1')).join('/');
}
