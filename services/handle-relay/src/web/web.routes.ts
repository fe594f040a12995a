import path from 'node:path';
import { errors } from '@svc/envelope';
import express, { Router } from 'express';
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
 * The web root: static files from `web_dir` with SPA fallback to its `index.html`, or the
 * placeholder page at `/`. `express.static` refuses `..` and dotfiles, and the fallback
 * sends one fixed file, so nothing outside `web_dir` can be served.
 */
export function webRoutes(deps: WebDeps): Router {
  const router = Router();
  if (!deps.webDir) {
    const page = placeholderPage(deps.server, deps.version);
    router.get('/', (_req, res) => {
      res.type('html').send(page);
    });
    return router;
  }
  const root = path.resolve(deps.webDir);
  router.use(express.static(root, { index: 'index.html', dotfiles: 'ignore', redirect: false }));
  router.get(/.*/, (_req, res, next) => {
    res.sendFile('index.html', { root, dotfiles: 'deny' }, (err) => {
      if (err && !res.headersSent) next(errors.notFound('no such route'));
    });
  });
  return router;
}
