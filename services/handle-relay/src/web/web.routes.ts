import fs from 'node:fs/promises';
import path from 'node:path';
import { methodNotAllowed } from '@svc/envelope';
import express, { Router, type RequestHandler } from 'express';
import { relayErrors } from '../errors.js';
import { placeholderPage } from './placeholder-page.js';

/** What the web root needs. */
export interface WebDeps {
  server: string;
  version: string;
  webDir: string | undefined;
}

/**
 * Paths that belong to the API: an unmatched one is a JSON 404, never the HTML fallback.
 * Mount before `webRoutes`.
 */
export const API_PREFIXES = ['/v1', '/.well-known', '/internal'];

/**
 * Only this origin, for everything: the app loads nothing from elsewhere (its stream and
 * service worker are same-origin; push goes through the browser's own service). Sent as a
 * header because a `<meta>` cannot carry `frame-ancestors`, and no site may frame the page
 * that holds the user's key. The app sets no inline scripts or style attributes.
 */
const CSP = [
  "default-src 'self'",
  "img-src 'self' data:",
  "object-src 'none'",
  "base-uri 'none'",
  "frame-ancestors 'none'",
  "form-action 'self'",
].join('; ');

/** The headers of every page and file of the web root, as the asset-store console sends. */
const securityHeaders: RequestHandler = (_req, res, next) => {
  res.set({
    'Content-Security-Policy': CSP,
    'X-Content-Type-Options': 'nosniff',
    'Referrer-Policy': 'no-referrer',
  });
  next();
};

/**
 * A check that is false when a URL path names, through a symlink, a file outside `root`.
 * A path that does not exist or cannot be decoded is left to `express.static`, which
 * answers it itself. The root's own real path is resolved once (and again only after a
 * failure, say a `web_dir` created after start).
 */
function insideRoot(root: string): (urlPath: string) => Promise<boolean> {
  let realRoot: Promise<string> | undefined;
  const resolveRoot = () =>
    (realRoot ??= fs.realpath(root).catch((err: unknown) => {
      realRoot = undefined;
      throw err;
    }));
  return async (urlPath) => {
    let relative: string;
    try {
      relative = decodeURIComponent(urlPath);
    } catch {
      return true;
    }
    const [rootPath, real] = await Promise.all([
      resolveRoot(),
      fs.realpath(path.join(root, relative)).catch(() => undefined),
    ]);
    if (real === undefined) return true;
    return real === rootPath || real.startsWith(rootPath + path.sep);
  };
}

/**
 * The web root: static files from `web_dir` with SPA fallback to its `index.html`, or the
 * placeholder page at `/`. `express.static` refuses `..` and dotfiles, a symlink that
 * leads out of `web_dir` is treated as no file, and the fallback sends one fixed file
 * under the same check, so nothing outside `web_dir` can be served.
 */
export function webRoutes(deps: WebDeps): Router {
  const router = Router();
  if (!deps.webDir) {
    const page = placeholderPage(deps.server, deps.version);
    router
      .route('/')
      .get(securityHeaders, (_req, res) => {
        res.type('html').send(page);
      })
      .all(methodNotAllowed(['GET']));
    return router;
  }
  const root = path.resolve(deps.webDir);
  const statics = express.static(root, {
    index: 'index.html',
    dotfiles: 'ignore',
    redirect: false,
  });
  const staysInside = insideRoot(root);
  router.use(async (req, res, next) => {
    // express.static serves only GET and HEAD: other methods need no path resolved.
    if (req.method !== 'GET' && req.method !== 'HEAD') return next();
    if (!(await staysInside(req.path))) return next();
    securityHeaders(req, res, () => {
      statics(req, res, next);
    });
  });
  // Every path outside the API is the client app's, served for GET: another method on it
  // is a wrong method (405), not a missing route.
  router.all(/.*/, (req, _res, next) => {
    if (req.method !== 'GET' && req.method !== 'HEAD') throw relayErrors.methodNotAllowed(['GET']);
    next();
  });
  router.get(/.*/, securityHeaders, async (_req, res, next) => {
    if (!(await staysInside('/index.html'))) return next(relayErrors.noSuchRoute());
    res.sendFile('index.html', { root, dotfiles: 'deny' }, (err) => {
      if (err && !res.headersSent) next(relayErrors.noSuchRoute());
    });
  });
  return router;
}
