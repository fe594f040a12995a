import { methodNotAllowed } from '@svc/envelope';
import { Router } from 'express';
import { relayErrors } from '../errors.js';

/** `POST /internal/nats/auth`: a visible 501 so a deployment wired to it fails loudly. */
export function natsAuthRoutes(): Router {
  const router = Router();
  router
    .route('/internal/nats/auth')
    .post(() => {
      throw relayErrors.natsAuthNotImplemented();
    })
    .all(methodNotAllowed(['POST']));
  return router;
}
