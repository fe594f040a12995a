import type { FuzzRequest } from './fuzz-request.js';

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;

/** Text as it can travel in a URL or a body (lone surrogates become U+FFFD, as UTF-8 must). */
export function text(value: unknown): string {
  const s = typeof value === 'string' ? value : (JSON.stringify(value) ?? String(value));
  return s.replace(LONE_SURROGATE, '\uFFFD');
}

/** The request's URL below `baseUrl`: path values escaped, objects as `name[key]` (qs style). */
export function urlOf(baseUrl: string, req: FuzzRequest): string {
  const path = req.operation.template.replace(/\{([^}]+)\}/g, (_, name: string) =>
    name in req.path ? encodeURIComponent(text(req.path[name])) : '',
  );
  const query = new URLSearchParams();
  for (const [name, value] of Object.entries(req.query)) {
    if (value === undefined) continue;
    if (Array.isArray(value)) for (const v of value) query.append(name, text(v));
    else if (value && typeof value === 'object') {
      for (const [k, v] of Object.entries(value)) query.append(`${name}[${k}]`, text(v));
    } else query.append(name, text(value));
  }
  const qs = query.toString();
  return `${baseUrl}${path}${qs ? `?${qs}` : ''}`;
}

/** A multipart/form-data body: Buffers as file parts, everything else as text fields. */
function multipart(fields: Record<string, unknown>): { type: string; bytes: Buffer } {
  const boundary = 'fuzz-boundary-7c1d';
  const parts: Buffer[] = [];
  const add = (name: string, value: unknown) => {
    const file = Buffer.isBuffer(value);
    const head =
      `--${boundary}\r\nContent-Disposition: form-data; name="${name}"` +
      (file ? '; filename="fuzz.bin"\r\nContent-Type: application/octet-stream' : '') +
      '\r\n\r\n';
    parts.push(Buffer.from(head), file ? value : Buffer.from(text(value)), Buffer.from('\r\n'));
  };
  for (const [name, value] of Object.entries(fields)) {
    if (Array.isArray(value)) for (const v of value) add(name, v);
    else if (value !== undefined) add(name, value);
  }
  parts.push(Buffer.from(`--${boundary}--\r\n`));
  return { type: `multipart/form-data; boundary=${boundary}`, bytes: Buffer.concat(parts) };
}

/** The request's body bytes and their type, or undefined without a body. */
export function bodyOf(req: FuzzRequest): { type: string; bytes: Buffer } | undefined {
  const body = req.body;
  if (!body) return undefined;
  if ('raw' in body) return { type: body.type, bytes: body.raw };
  if (body.type.startsWith('multipart/form-data')) {
    const value = body.value;
    return value && typeof value === 'object' && !Array.isArray(value)
      ? multipart(value as Record<string, unknown>)
      : { type: body.type, bytes: Buffer.from(text(value)) };
  }
  if (body.type.includes('json')) {
    if (body.value === undefined) return undefined;
    return { type: body.type, bytes: Buffer.from(JSON.stringify(body.value)) };
  }
  const value = body.value;
  return { type: body.type, bytes: Buffer.isBuffer(value) ? value : Buffer.from(text(value)) };
}

/** A short account of a request, for failure messages (values cut to a readable length). */
export function describeRequest(baseUrl: string, req: FuzzRequest): string {
  const url = urlOf(baseUrl, req).slice(baseUrl.length);
  const body = bodyOf(req);
  const headers = JSON.stringify(req.headers).slice(0, 300);
  const shown = body
    ? ` body(${body.type}, ${body.bytes.length} B): ${body.bytes.toString('utf8', 0, 300)}`
    : '';
  return `${req.operation.method} ${url.slice(0, 300)} [${req.mutation ?? 'valid'}] headers ${headers}${shown}`;
}
