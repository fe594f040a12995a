import type { IncomingMessage, ServerResponse } from 'node:http';
import { AppError, assetStoreError } from '@svc/envelope';
import { Server } from '@tus/server';
import { NodeRequest } from 'srvx/node';
import { API_BASE } from '../api-base.js';
import {
  CHECKSUM_ALGORITHM,
  parseUploadChecksum,
  withExpectedChecksum,
} from './upload-checksum.js';
import { UploadLocker, withRequestMethod } from './upload-locker.js';
import type { UploadService } from './upload.service.js';
import type { AssetUploadStore } from './upload-store.js';

/** Where the tus endpoint lives. */
export const UPLOADS_PATH = `${API_BASE}/uploads`;

/** The headers that name the asset a finished upload became. */
const ASSET_HASH = 'Asset-Hash';
const ASSET_TIMESTAMP = 'Asset-Timestamp';

/** What the tus endpoint needs. */
export interface TusUploadsDeps {
  store: AssetUploadStore;
  uploads: UploadService;
  /** `Tus-Max-Size`: `max_upload_bytes`. */
  maxBytes: number;
}

/**
 * The tus 1.0.0 endpoint: @tus/server speaks the protocol (core, creation,
 * creation-with-upload, termination, expiration) over our data store; this adds the
 * checksum extension (`Upload-Checksum` read here, checked by the store), the
 * `Asset-Hash`/`Asset-Timestamp` headers, and answers every error in the service's envelope.
 */
export class TusUploads {
  readonly #server: Server;

  constructor(private readonly deps: TusUploadsDeps) {
    this.#server = new Server({
      path: UPLOADS_PATH,
      datastore: deps.store,
      locker: new UploadLocker(),
      maxSize: deps.maxBytes,
      // The Location is the path alone: no Host header (a client's to choose) goes into it.
      relativeLocation: true,
      disableTerminationForFinishedUploads: true,
      exposedHeaders: [ASSET_HASH, ASSET_TIMESTAMP, 'Tus-Checksum-Algorithm'],
      allowedHeaders: ['Upload-Checksum'],
      onUploadCreate: (req, upload) =>
        Promise.resolve({
          metadata: deps.uploads.checkCreation(upload.size, req.headers.get('upload-metadata')),
        }),
      onUploadFinish: async (_req, upload) => {
        const asset = await deps.uploads.finish(upload.id);
        return { headers: assetHeaders(asset) };
      },
      onResponseError: (_req, err) => {
        // Our own errors keep their status and words; tus's protocol errors are wrapped below;
        // anything else goes to the error handler (logged, a bare 500 or a translated one).
        if (err instanceof AppError) {
          return { status_code: err.status, body: JSON.stringify(assetStoreError(err)) };
        }
        if (isTusError(err)) return undefined;
        throw err as Error;
      },
    });
  }

  /** Answers one tus request (`:id` already checked by the route). */
  async handle(req: IncomingMessage, res: ServerResponse, id: string | undefined): Promise<void> {
    const checksum = parseUploadChecksum(req.headers['upload-checksum']);
    const answer = await withRequestMethod(req.method ?? '', () =>
      withExpectedChecksum(checksum, () => this.#server.handleWeb(new NodeRequest({ req, res }))),
    );
    const headers = new Headers(answer.headers);
    // A conflict (the offset moved, the upload busy) comes before the body is read: tus would
    // close the connection on a client still sending it. The body is read and dropped instead
    // (Node does so once the answer is sent), so the client hears the answer.
    if (answer.status === 409 || answer.status === 423) headers.delete('Connection');
    if (req.method === 'OPTIONS') headers.set('Tus-Checksum-Algorithm', CHECKSUM_ALGORITHM);
    if (req.method === 'HEAD' && answer.status === 200 && id !== undefined) {
      const asset = await this.deps.uploads.finishedAsset(id);
      if (asset)
        for (const [name, value] of Object.entries(assetHeaders(asset))) headers.set(name, value);
    }
    let body = answer.body === null ? '' : await answer.text();
    if (answer.status >= 400) {
      if (!body.startsWith('{')) {
        body = JSON.stringify({ status: 'error', error: body.trim() || 'upload refused' });
      }
      headers.set('Content-Type', 'application/json; charset=utf-8');
    }
    res.statusCode = answer.status;
    for (const [name, value] of headers) res.setHeader(name, value);
    if (body !== '' || answer.status >= 400)
      res.setHeader('Content-Length', Buffer.byteLength(body));
    res.end(body);
  }
}

function assetHeaders(asset: { hash: string; timestamp: number }): Record<string, string> {
  return { [ASSET_HASH]: asset.hash, [ASSET_TIMESTAMP]: String(asset.timestamp) };
}

/** The errors @tus/server and @tus/utils throw: `{status_code, body}`. */
function isTusError(err: unknown): boolean {
  return typeof (err as { status_code?: unknown } | null)?.status_code === 'number';
}
