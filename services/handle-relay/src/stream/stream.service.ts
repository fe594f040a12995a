import type { Response } from 'express';
import type { Kysely } from 'kysely';
import { verifySignedRequest } from '../auth/signed-request.js';
import type { Database } from '../db/database.js';
import { relayErrors } from '../errors.js';
import { findHandle } from '../handles/handle.repository.js';
import { requireValidHandle } from '../handles/handle-rules.js';
import { resumeCursor } from '../messages/message.schemas.js';
import type { StreamHub } from './stream-hub.js';

/** What opening a stream needs. */
export interface StreamServiceDeps {
  db: Kysely<Database>;
  hub: StreamHub;
  now: () => number;
}

/** The parts of a stream request the rules look at. */
export interface StreamRequest {
  handle: string;
  auth: unknown;
  /** `Last-Event-ID` header; wins over `since`. */
  lastEventId: string | undefined;
  since: unknown;
}

function resumePoint(r: StreamRequest): number | undefined {
  // A `since` given is checked even when Last-Event-ID wins: a malformed one is a mistake.
  if (r.since !== undefined && !resumeCursor.safeParse(r.since).success) {
    throw relayErrors.invalidResumePoint('since');
  }
  // An empty Last-Event-ID is what a client sends when it has seen no event yet.
  const raw = r.lastEventId || r.since;
  if (raw === undefined) return undefined;
  const parsed = resumeCursor.safeParse(raw);
  if (!parsed.success) {
    throw relayErrors.invalidResumePoint(r.lastEventId ? 'Last-Event-ID' : 'since');
  }
  return parsed.data;
}

/** The live inbox rules: who may open a stream, and from where it resumes. */
export class StreamService {
  constructor(private readonly deps: StreamServiceDeps) {}

  /**
   * Opens `GET /v1/inbox/{handle}/stream`. Order of checks: handle 400, exists 404, `auth`
   * present 400, verifies 401 (timestamp checked at connect time only), resume point 400.
   */
  async open(r: StreamRequest, res: Response): Promise<void> {
    const { deps } = this;
    const handle = requireValidHandle(r.handle);
    const row = await findHandle(deps.db, handle);
    if (!row) throw relayErrors.unknownHandle();
    if (r.auth === undefined || r.auth === '') {
      throw relayErrors.streamAuthMissing();
    }
    // Repeated, the value is present but no `<ts>:<sig>`: the spec's invalid auth, a 401.
    if (typeof r.auth !== 'string') throw relayErrors.malformedAuth();
    const lines = (spelled: string) => ['GET', `/v1/inbox/${spelled}/stream`];
    verifySignedRequest({
      value: r.auth,
      primary: row.primary_key,
      lines: lines(handle),
      spelledLines: lines(r.handle),
      now: deps.now(),
    });
    await deps.hub.open(handle, resumePoint(r), res, row.primary_key);
  }
}
