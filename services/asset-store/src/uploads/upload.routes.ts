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
  router
    .route('/uploads')
    .post(handle)
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
