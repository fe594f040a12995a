import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import fc from 'fast-check';
import { bodyOf, describeRequest, urlOf } from './fuzz/fuzz-http.js';
import { mutated, validRequest, type FuzzRequest } from './fuzz/fuzz-request.js';
import { inDocument, operationsOf, pointer, type Doc } from './fuzz/operations.js';
import { refusal } from './fuzz/request-check.js';
import type { JsonSchema } from './fuzz/schema-arbitrary.js';

export type { FuzzOperation, FuzzRequest } from './fuzz/fuzz-request.js';

// ajv-formats is CommonJS; under ESM its function may sit on `default`.
const addFormats = ((addFormatsModule as unknown as { default?: unknown }).default ??
  addFormatsModule) as (ajv: Ajv2020) => Ajv2020;

/** What to fuzz, where, for how long, and what the service needs to take a valid request. */
export interface OpenApiFuzzOptions {
  /** The document as the service serves it at `/openapi.json`. */
  document: Record<string, unknown>;
  /** The service over real HTTP, e.g. `http://127.0.0.1:4321`. */
  baseUrl: string;
  seed: number;
  timeLimitMs: number;
  /** Values worth trying for a parameter or body property by name (known hashes, handles). */
  examples?: Readonly<Record<string, readonly unknown[]>>;
  /** A valid request's finishing touch before credentials (a signed registration, say). */
  prepare?: (req: FuzzRequest) => FuzzRequest;
  /** The credential one security scheme needs for this request, if the test can make it. */
  credential?: (scheme: string, req: FuzzRequest) => string | undefined;
  /** Operations not fuzzed, `METHOD /template` → why. */
  skip?: Readonly<Record<string, string>>;
  /**
   * Operations whose valid requests may still be refused with 400, `METHOD /template` → why
   * (a rule no schema can state). Elsewhere a request the document allows must not get 400:
   * that would be a document looser than the service.
   */
  mayRefuseValid?: Readonly<Record<string, string>>;
}

/** What a run did: statuses seen per operation, requests that could not be sent. */
export interface FuzzReport {
  requests: number;
  /** Requests fetch refused to send (a header value outside Latin-1, a body on GET). */
  unsendable: number;
  /** Connections the service closed before answering (it still answered the next one). */
  dropped: number;
  statuses: Record<string, Record<string, number>>;
  skipped: Record<string, string>;
}

/**
 * Sends requests derived from the document (valid ones, then mutations of them) for a
 * bounded time with a fixed seed, and throws at the first answer the document does not
 * predict: a 5xx (other than a documented 501), an undocumented status or content type, or
 * a JSON body its schema refuses, or a service that stops answering.
 */
export async function fuzzOpenApi(options: OpenApiFuzzOptions): Promise<FuzzReport> {
  const doc = options.document as unknown as Doc;
  const report: FuzzReport = {
    requests: 0,
    unsendable: 0,
    dropped: 0,
    statuses: {},
    // Skipped operations are the caller's, each with its reason; more join when unfuzzable.
    skipped: { ...options.skip },
  };
  const ops = operationsOf(doc, report.skipped).filter((op) => !(op.key in report.skipped));
  const ajv = new Ajv2020({ strict: false, allErrors: true });
  addFormats(ajv);
  ajv.addSchema(options.document, 'openapi');
  const validators = new Map<string, ValidateFunction>();
  const schemes = doc.components?.securitySchemes ?? {};
  // Request schemas are checked as given, with their `$ref`s resolved in the document.
  const checkSchema = (schema: JsonSchema, value: unknown): boolean => {
    const key = JSON.stringify(schema);
    let validate = validators.get(key);
    if (!validate) {
      validate = ajv.compile(inDocument(schema) as object | boolean);
      validators.set(key, validate);
    }
    return validate(value);
  };
  const ctx = {
    resolve: (ref: string) => {
      let node: unknown = options.document;
      for (const part of ref.replace(/^#\//, '').split('/')) {
        node = (node as Record<string, unknown>)[part.replace(/~1/g, '/').replace(/~0/g, '~')];
      }
      return node as JsonSchema;
    },
    examples: options.examples,
  };

  const withCredentials = (req: FuzzRequest): FuzzRequest => {
    const prepared = options.prepare ? options.prepare(req) : req;
    const needed = prepared.operation.security;
    if (needed.length === 0 || needed.some((alt) => alt.length === 0)) return prepared;
    const out = { ...prepared, headers: { ...prepared.headers }, query: { ...prepared.query } };
    for (const name of needed[0]!) {
      const value = options.credential?.(name, out);
      const scheme = schemes[name];
      if (value === undefined || !scheme) continue;
      if (scheme.type === 'http') out.headers.Authorization = `Bearer ${value}`;
      else if (scheme.in === 'header') out.headers[scheme.name!] = value;
      else if (scheme.in === 'query') out.query[scheme.name!] = value;
    }
    return out;
  };

  const requests = fc
    .constantFrom(...ops)
    .chain((op) => validRequest(op, ctx))
    .map(withCredentials)
    .chain((valid) =>
      fc.oneof(
        { weight: 2, arbitrary: fc.constant(valid) },
        { weight: 3, arbitrary: mutated(valid) },
      ),
    )
    .map((req) =>
      Object.assign(req, { [fc.toStringMethod]: () => describeRequest(options.baseUrl, req) }),
    );

  const check = async (req: FuzzRequest): Promise<void> => {
    const op = req.operation;
    const body = bodyOf(req);
    const headers: Record<string, string> = { ...req.headers };
    if (body) headers['Content-Type'] = body.type;
    let res: Response;
    try {
      res = await fetch(urlOf(options.baseUrl, req), {
        method: op.method,
        headers,
        body: body?.bytes,
        redirect: 'manual',
        signal: AbortSignal.timeout(15_000),
      });
    } catch (err) {
      if ((err as Error).name === 'TimeoutError') throw new Error('no answer within 15 s');
      if ((err as Error).message !== 'fetch failed') {
        report.unsendable++;
        return;
      }
      // The service may close a connection whose body it refused before reading it all; it
      // must still answer the next request.
      report.dropped++;
      const alive = await fetch(`${options.baseUrl}/openapi.json`).catch(() => undefined);
      if (alive?.status !== 200) throw new Error(`the service stopped answering: ${String(err)}`);
      return;
    }
    report.requests++;
    const seen = (report.statuses[op.key] ??= {});
    seen[res.status] = (seen[res.status] ?? 0) + 1;
    const status = String(res.status);
    const fail = (why: string, text = '') => {
      throw new Error(`${op.key} answered ${status}: ${why}\n  body: ${text.slice(0, 500)}`);
    };
    // An event stream never ends: its body is not read, whatever the verdict.
    const isStream = (res.headers.get('content-type') ?? '').startsWith('text/event-stream');
    const bodyText = async () =>
      isStream ? (await res.body?.cancel(), '(event stream)') : res.text();
    if (res.status >= 500 && !(res.status === 501 && op.responses['501'])) {
      fail('a server error', await bodyText());
    }
    if (res.status === 400 && req.mutation === undefined && !options.mayRefuseValid?.[op.key]) {
      fail('a request the document allows was refused', await bodyText());
    }
    const refused = req.mutation === undefined ? undefined : refusal(req, checkSchema);
    if (refused && res.status >= 200 && res.status < 300) {
      fail(`a request the document refuses (${refused}) was accepted`, await bodyText());
    }
    const documented =
      op.responses[status] ?? op.responses[`${status[0]}XX`] ?? op.responses.default;
    if (!documented) fail('a status the document does not list', await bodyText());
    if (op.method === 'HEAD') return;
    const type = (res.headers.get('content-type') ?? '').split(';')[0]!.trim().toLowerCase();
    if (type === 'text/event-stream') {
      await res.body?.cancel();
      if (!documented!.content?.[type]) fail('an undocumented event stream');
      return;
    }
    const text = await res.text();
    if (!documented!.content) {
      if (text.length > 0) fail('a body where the document has none', text);
      return;
    }
    const mediaType = Object.keys(documented!.content).find(
      (t) => t === type || t === '*/*' || (t.endsWith('/*') && type.startsWith(t.slice(0, -1))),
    );
    if (!mediaType) fail(`content type "${type}", which the document does not list`, text);
    // A download (`*/*`) is the stored bytes, whatever their type says.
    if (!/[/+]json$/.test(mediaType!)) return;
    const at = `openapi#/${pointer('paths', op.template, op.method.toLowerCase(), 'responses', status, 'content', mediaType!, 'schema')}`;
    let validate = validators.get(at);
    if (!validate) {
      validate = ajv.compile({ $ref: at });
      validators.set(at, validate);
    }
    if (!validate(JSON.parse(text)))
      fail(`a body its schema refuses: ${ajv.errorsText(validate.errors)}`, text);
  };

  // First one valid request per operation, so each is reached however slow the machine;
  // then the time-bounded random mix.
  for (const op of ops) {
    const [req] = fc.sample(validRequest(op, ctx).map(withCredentials), {
      numRuns: 1,
      seed: options.seed,
    });
    await check(req!).catch((err: unknown) => {
      throw new Error(`${describeRequest(options.baseUrl, req!)}\n${String(err)}`);
    });
  }
  const result = await fc.check(fc.asyncProperty(requests, check), {
    seed: options.seed,
    numRuns: Number.MAX_SAFE_INTEGER,
    interruptAfterTimeLimit: options.timeLimitMs,
    endOnFailure: true,
  });
  if (result.failed) {
    throw new Error(
      `openapi fuzz failed (seed ${options.seed}, path ${result.counterexamplePath}):\n` +
        `${result.counterexample ? fc.stringify(result.counterexample[0]) : ''}\n${String(result.errorInstance)}`,
    );
  }
  for (const op of ops) {
    if (!report.statuses[op.key]) throw new Error(`${op.key} was never fuzzed`);
  }
  return report;
}
