import { methodNotAllowed } from '@svc/envelope';
import { Router, type RequestHandler } from 'express';
import { assetErrors } from '../errors.js';
import type { TusUploads } from './tus-uploads.js';

/** Upload ids as @tus/server's default naming function makes them (16 random bytes, hex). */
const UPLOAD_ID = /^[0-9a-f]{32}$/;

/** The tus endpoint under `/api/v1/can/0`: `/uploads` and `/uploads/{id}`. */
export function uploadRoutes(deps: { tus: TusUploads }): Router {
  const router = Router();
  const handle: RequestHandler = async (req, res) => {
    const param: unknown = req.params.id;
    const id = typeof param === 'string' ? param : undefined;
    // Ids name files under `.tmp/uploads/`: only ours get that far.
    if (param !== undefined && (id === undefined || !UPLOAD_ID.test(id))) {
      throw assetErrors.uploadNotFound();
    }
    await deps.tus.handle(req, res, id);
  };
  // tus carries bytes only as offset+octet-stream; any other body is a client's mistake,
  // which @tus/server would silently drop while creating an empty upload.
  const bytesOnly: RequestHandler = (req, _res, next) => {
    const hasBody =
      Number(req.headers['content-length'] ?? 0) > 0 || 'transfer-encoding' in req.headers;
    if (hasBody && req.headers['content-type'] !== 'application/offset+octet-stream') {
      throw assetErrors.uploadBodyType();
    }
    next();
  };
  router
    .route('/uploads')
    .post(bytesOnly, handle)
    .options(handle)
    .all(methodNotAllowed(['POST', 'OPTIONS']));
  router
    .route('/uploads/:id')
    .head(handle)
    .patch(handle)
    .delete(handle)
    .options(handle)
    .all(methodNotAllowed(['HEAD', 'PATCH', 'DELETE', 'OPTIONS']));
  return router;
}
