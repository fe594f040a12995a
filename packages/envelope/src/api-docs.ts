import fs from 'node:fs/promises';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzip } from 'node:zlib';
import { promisify } from 'node:util';
import { Router, type RequestHandler, type Response } from 'express';
import { errors } from './errors.js';
import { methodNotAllowed } from './middleware.js';
import type { OpenApiContribution } from './openapi-document.js';

/** Where the reference lives on both services. */
export const API_DOCS_PATH = '/docs';

/**
 * The console's policy (only this origin, for everything), plus inline styles: the
 * renderer's components set `style` attributes, which CSP allows only with 'unsafe-inline'.
 * Scripts stay 'self'.
 */
const CSP = [
  "default-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' blob:",
  "object-src 'none'",
  "base-uri 'none'",
  "frame-ancestors 'none'",
  "form-action 'self'",
].join('; ');

const SECURITY_HEADERS = {
  'Content-Security-Policy': CSP,
  'X-Content-Type-Options': 'nosniff',
  'Referrer-Policy': 'no-referrer',
  'Cache-Control': 'no-cache',
};

/**
 * Scalar's settings: the service's own document, none of the vendor's hosted extras (its
 * fonts, AI agent, developer tools, telemetry), so the page asks nothing of another origin.
 */
const SCALAR_CONFIG = {
  url: '/openapi.json',
  withDefaultFonts: false,
  showDeveloperTools: 'never',
  telemetry: false,
  agent: { disabled: true },
  mcp: { disabled: true },
  hideClientButton: true,
  documentDownloadType: 'json',
};

/**
 * Runs before the renderer: zod (inside it) probes `Function('')` unless told not to, and
 * under a CSP without 'unsafe-eval' that probe is a console error.
 */
const SETUP_SCRIPT = 'globalThis.__zod_globalConfig = { jitless: true };\n';
const INIT_SCRIPT = `Scalar.createApiReference('#reference', ${JSON.stringify(SCALAR_CONFIG)});\n`;
const FAVICON =
  '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 16 16"><rect width="16" height="16" rx="3" fill="#2f5d8a"/><path d="M4 5h8M4 8h8M4 11h5" stroke="#fff" stroke-width="1.5"/></svg>';

function page(title: string): string {
  const escaped = title.replace(/[&<>"]/g, (c) => `&#${c.charCodeAt(0)};`);
  return `<!doctype html>
<html lang="en">
  <head>
    <meta charset="utf-8" />
    <meta name="viewport" content="width=device-width, initial-scale=1" />
    <title>${escaped} API reference</title>
    <link rel="icon" href="${API_DOCS_PATH}/favicon.svg" type="image/svg+xml" />
  </head>
  <body>
    <main id="reference" aria-label="${escaped} API reference"></main>
    <script src="${API_DOCS_PATH}/setup.js"></script>
    <script src="${API_DOCS_PATH}/scalar.js"></script>
    <script src="${API_DOCS_PATH}/init.js"></script>
  </body>
</html>
`;
}

/**
 * The renderer's browser bundle: copied next to the compiled package by
 * `scripts/api-docs-assets.mjs` (what the images ship), else straight from the
 * `@scalar/api-reference` dev dependency (a workspace checkout).
 */
async function findRenderer(): Promise<string | undefined> {
  const here = path.dirname(fileURLToPath(import.meta.url));
  const candidates = [path.join(here, '..', 'api-docs', 'scalar.js')];
  try {
    const entry = createRequire(import.meta.url).resolve('@scalar/api-reference');
    candidates.push(path.join(path.dirname(entry), 'browser', 'standalone.js'));
  } catch {
    // Not installed (a production install): only the copied bundle can serve.
  }
  for (const file of candidates) {
    if (
      await fs.stat(file).then(
        (s) => s.isFile(),
        () => false,
      )
    )
      return file;
  }
  return undefined;
}

interface Bundle {
  plain: Buffer;
  gzipped: Buffer;
}

/** Read and compressed once, on the first request that needs it (4.7 MB, 1.3 MB gzipped). */
function rendererBundle(): () => Promise<Bundle | undefined> {
  let loading: Promise<Bundle | undefined> | undefined;
  return () =>
    (loading ??= (async () => {
      const file = await findRenderer();
      if (!file) return undefined;
      const plain = await fs.readFile(file);
      return { plain, gzipped: await promisify(gzip)(plain) };
    })().catch((err: unknown) => {
      loading = undefined;
      throw err;
    }));
}

function send(res: Response, type: string, body: string | Buffer): void {
  res.set(SECURITY_HEADERS).type(type).send(body);
}

/**
 * `GET /docs`: the service's own `/openapi.json` rendered by Scalar, every file served by
 * the service itself (the page, the renderer, its two small scripts and an icon).
 */
export function apiDocsRoutes(options: { title: string }): Router {
  const router = Router();
  const html = page(options.title);
  const bundle = rendererBundle();
  const get = (route: string, handler: RequestHandler) => {
    router
      .route(route)
      .get(handler)
      .all(methodNotAllowed(['GET', 'HEAD']));
  };
  get(API_DOCS_PATH, (_req, res) => send(res, 'html', html));
  get(`${API_DOCS_PATH}/setup.js`, (_req, res) => send(res, 'text/javascript', SETUP_SCRIPT));
  get(`${API_DOCS_PATH}/init.js`, (_req, res) => send(res, 'text/javascript', INIT_SCRIPT));
  get(`${API_DOCS_PATH}/favicon.svg`, (_req, res) => send(res, 'image/svg+xml', FAVICON));
  get(`${API_DOCS_PATH}/scalar.js`, async (req, res) => {
    const found = await bundle();
    if (!found) throw errors.unavailable('the API reference renderer is not installed');
    res.vary('Accept-Encoding');
    if (req.acceptsEncodings('gzip') === 'gzip') {
      res.set('Content-Encoding', 'gzip');
      send(res, 'text/javascript', found.gzipped);
    } else {
      send(res, 'text/javascript', found.plain);
    }
  });
  return router;
}

/** `/docs` in a service's OpenAPI document. */
export const apiDocsOpenApi: OpenApiContribution = {
  paths: {
    [API_DOCS_PATH]: {
      get: {
        summary: 'This API reference, rendered in the browser from /openapi.json',
        operationId: 'apiDocs',
        security: [],
        responses: {
          '200': { description: 'The reference page', content: { 'text/html': {} } },
        },
      },
    },
  },
};
