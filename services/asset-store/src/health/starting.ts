import type { RequestListener } from 'node:http';
import { assetStoreError, writeError } from '@svc/envelope';
import type { Logger } from 'pino';
import { assetErrors } from '../errors.js';

/**
 * What answers while the service listens but cannot serve yet (its start waits on S3):
 * `GET /healthz` 503 saying what the start waits for, every other request 503 in the
 * envelope, both with `Retry-After`. A body sent is read and dropped after the answer (Node
 * does so for an answered request): closing on it instead cuts a client off mid-send.
 */
export function startingApp(waitingFor: () => string, logger: Logger): RequestListener {
  return (req, res) => {
    const what = waitingFor();
    const path = (req.url ?? '').split('?')[0];
    const err = path === '/healthz' ? assetErrors.starting(what) : assetErrors.notReady(what);
    writeError(res, err, assetStoreError, logger);
  };
}
