import fs from 'node:fs/promises';
import path from 'node:path';
import { errors } from '@svc/envelope';
import express, { Router, type RequestHandler } from 'express';
import { assetErrors } from '../errors.js';

/** Where the console's built files are; `web/dist` of this service unless a test builds its own. */
export interface ConsoleDeps {
  dir: string;
  /**
   * The grid's first request on `/console/` (no filters), preloaded with the page (a `Link`
   * header) so it runs while the script loads; absent when the API asks a token, which a
   * preload cannot send.
   */
  firstPage?: string;
}

/** The mount point; every client route of the console lives under it. */
export const CONSOLE_BASE = '/console';

/**
 * Only this origin, for everything: the console loads nothing from elsewhere. `blob:` images
 * are thumbnails fetched with the bearer token (an `<img>` cannot send one).
 */
const CSP = [
  "default-src 'self'",
  "img-src 'self' blob:",
  // The viewer: media from the store (or fetched with the token); a PDF in a frame of the
  // store's download, which sends its own `Content-Security-Policy: sandbox`.
  "media-src 'self' blob:",
  "frame-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "frame-ancestors 'none'",
  "form-action 'self'",
].join('; ');

const securityHeaders: RequestHandler = (_req, res, next) => {
  res.set({
    'Content-Security-Policy': CSP,
    'X-Content-Type-Options': 'nosniff',
    'Referrer-Policy': 'no-referrer',
    // Files are not content-hashed, so the browser revalidates each (cheap with ETags).
    'Cache-Control': 'no-cache',
  });
  next();
};

/** True when `dir` holds a built console (its `index.html`). */
async function isBuilt(dir: string): Promise<boolean> {
  try {
    return (await fs.stat(path.join(dir, 'index.html'))).isFile();
  } catch {
    return false;
  }
}

/**
 * The web console, mounted at `/console`: the built files with their types, and `index.html`
 * for every client route (a path without a file extension). Checked per request, so a build
 * made after start is served at once. The folder is the service's own build output, not a
 * setting, and `express.static` refuses `..` and dotfiles.
 */
export function consoleRoutes(deps: ConsoleDeps): Router {
  const root = path.resolve(deps.dir);
  const router = Router();
  const statics = express.static(root, {
    index: 'index.html',
    dotfiles: 'ignore',
    redirect: false,
    fallthrough: true,
    cacheControl: false,
  });
  router.use(async (req, res, next) => {
    if (req.method !== 'GET' && req.method !== 'HEAD')
      throw errors.methodNotAllowed(['GET', 'HEAD']);
    // `/console` itself: the console's own routes all live under `/console/`.
    if (req.originalUrl === CONSOLE_BASE || req.originalUrl.startsWith(`${CONSOLE_BASE}?`)) {
      res.redirect(301, `${CONSOLE_BASE}/`);
      return;
    }
    if (!(await isBuilt(root))) throw assetErrors.consoleNotBuilt();
    if (deps.firstPage && req.originalUrl === `${CONSOLE_BASE}/`) {
      res.set('Link', `<${deps.firstPage}>; rel=preload; as=fetch; crossorigin=anonymous`);
    }
    securityHeaders(req, res, () => {
      statics(req, res, next);
    });
  });
  router.use((req, res, next) => {
    // A missing script or stylesheet is a 404, not the page in its place.
    if (path.extname(req.path) !== '') throw assetErrors.consoleFileNotFound();
    res.sendFile('index.html', { root, dotfiles: 'deny', cacheControl: false }, (err) => {
      if (err && !res.headersSent) next(assetErrors.consoleNotBuilt());
    });
  });
  return router;
}

/**
 * `GET /favicon.ico`: the console's icon at the site's root, where browsers (and link
 * previews, bookmarks) look for one unprompted. Served from the built console; not built
 * yet: the usual 404.
 */
export function faviconRoute(deps: Pick<ConsoleDeps, 'dir'>): Router {
  const root = path.resolve(deps.dir);
  const router = Router();
  router.get('/favicon.ico', (_req, res, next) => {
    res.sendFile(
      'favicon.ico',
      {
        root,
        dotfiles: 'deny',
        // A day: the icon changes with a release at most, and browsers ask for it often.
        maxAge: 86_400_000,
        headers: { 'Content-Type': 'image/x-icon', 'X-Content-Type-Options': 'nosniff' },
      },
      (err) => {
        if (err && !res.headersSent) next();
      },
    );
  });
  return router;
}
