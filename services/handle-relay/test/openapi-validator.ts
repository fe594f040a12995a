import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import type { Response } from 'supertest';

// ajv-formats is CommonJS; under ESM its default export arrives wrapped.
const addFormats = ((addFormatsModule as unknown as { default?: unknown }).default ??
  addFormatsModule) as (ajv: Ajv2020) => Ajv2020;

type Operation = {
  requestBody?: { content?: Record<string, unknown> };
  responses?: Record<string, { content?: Record<string, unknown> }>;
};

/** Checks real responses against the served OpenAPI 3.1 document. */
export interface OpenApiValidator {
  /** Throws unless `res` is a documented status of `method path` and its body validates. */
  check(method: string, templatePath: string, res: Response): void;
  /** Throws unless `body` validates against the operation's JSON request body. */
  checkRequest(method: string, templatePath: string, body: unknown): void;
}

function pointer(...segments: string[]): string {
  return segments
    .map((s) => encodeURIComponent(s.replace(/~/g, '~0').replace(/\//g, '~1')))
    .join('/');
}

/** Loads a document into Ajv (JSON Schema 2020-12, as OpenAPI 3.1 uses) with formats. */
export function createOpenApiValidator(doc: Record<string, unknown>): OpenApiValidator {
  const ajv = new Ajv2020({ strict: false, allErrors: true });
  addFormats(ajv);
  ajv.addSchema(doc, 'openapi');
  const paths = doc.paths as Record<string, Record<string, Operation>>;
  return {
    checkRequest(method, templatePath, body) {
      const op = paths[templatePath]?.[method.toLowerCase()];
      if (!op?.requestBody?.content?.['application/json']) {
        throw new Error(`${method} ${templatePath} documents no JSON request body`);
      }
      const ref = `openapi#/${pointer('paths', templatePath, method.toLowerCase(), 'requestBody', 'content', 'application/json', 'schema')}`;
      const validate = ajv.getSchema(ref) ?? ajv.compile({ $ref: ref });
      if (!validate(body)) {
        throw new Error(
          `${method} ${templatePath} request does not match: ${ajv.errorsText(validate.errors)}`,
        );
      }
    },
    check(method, templatePath, res) {
      const op = paths[templatePath]?.[method.toLowerCase()];
      if (!op) throw new Error(`${method} ${templatePath} is not in the OpenAPI document`);
      const status = String(res.status);
      const documented = op.responses?.[status];
      if (!documented) {
        throw new Error(`${method} ${templatePath} answered ${status}, which is not documented`);
      }
      const contentType = String(res.headers['content-type'] ?? '').split(';')[0] ?? '';
      if (!documented.content) {
        if (res.text)
          throw new Error(`${method} ${templatePath} ${status} has an undocumented body`);
        return;
      }
      if (!(contentType in documented.content)) {
        throw new Error(`${method} ${templatePath} ${status}: undocumented type ${contentType}`);
      }
      const ref = `openapi#/${pointer('paths', templatePath, method.toLowerCase(), 'responses', status, 'content', contentType, 'schema')}`;
      const validate = ajv.getSchema(ref) ?? ajv.compile({ $ref: ref });
      const body: unknown = contentType.includes('json') ? JSON.parse(res.text) : res.text;
      if (!validate(body)) {
        throw new Error(
          `${method} ${templatePath} ${status} does not match: ${ajv.errorsText(validate.errors)}`,
        );
      }
    },
  };
}
