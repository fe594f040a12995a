import { isUniqueViolation } from '@svc/database';
import type { Kysely } from 'kysely';
import { formatPrimary, parsePrimary } from '../auth/primary-key.js';
import { verifySignedRequest } from '../auth/signed-request.js';
import type { Config } from '../config.js';
import type { Database } from '../db/database.js';
import { relayErrors } from '../errors.js';
import { parseJsonBody } from '../http/body.js';
import { validate } from '../http/validate.js';
import { toHandleRecord, type HandleRecord } from './handle-record.js';
import { foldHandle, fqhn, isValidHandle, requireValidHandle } from './handle-rules.js';
import { linkLine } from '../client/sigchain.js';
import * as repo from './handle.repository.js';
import { PROOFS_MAX, proofEntrySchema, proofsBodySchema } from './handle.schemas.js';
import { HandleWriter } from './handle-writer.js';
import { HANDLE_PKEY, HANDLE_PRIMARY_UNIQUE, type HandleRow } from './handle.table.js';
import { verifyRegistration } from './registration.js';
import type { RelayMetrics } from '../metrics/relay-metrics.js';

/** What the handle service needs. */
export interface HandleServiceDeps {
  db: Kysely<Database>;
  config: Pick<Config, 'server' | 'sig_server_url'>;
  now: () => number;
  /** Registrations, for `/metrics`. */
  metrics?: Pick<RelayMetrics, 'registered'>;
  /** False only for bench:identity's baseline: registrations without the log. */
  log?: boolean;
}

/** Registration, lookups and proofs: the identity rules of the relay. */
export class HandleService {
  readonly #writer: HandleWriter;

  constructor(private readonly deps: HandleServiceDeps) {
    this.#writer = new HandleWriter(deps.db, deps.log ?? true);
  }

  #record(row: HandleRow): HandleRecord {
    return toHandleRecord(row, this.deps.config);
  }

  /**
   * Claims a handle from a signed registration. The unique constraints decide races:
   * of concurrent claims exactly one insert succeeds, the others get 409.
   */
  async register(rawBody: Buffer | undefined): Promise<HandleRecord> {
    const nowMs = this.deps.now();
    const { handle, primary, ts, eldestSig } = verifyRegistration(
      parseJsonBody(rawBody),
      this.deps.config.server,
      nowMs,
    );
    const row = { handle, primary_key: primary, registered_at: new Date(nowMs), proofs: [] };
    const eldestLine = linkLine({
      seq: 1,
      prev: null,
      type: 'eldest',
      handle: fqhn(handle, this.deps.config.server),
      key: primary,
      ctime: ts,
      sig: eldestSig,
    });
    const reg = { row, eldestLine };
    if (await this.#writer.tryInsert(reg)) {
      this.deps.metrics?.registered();
      return this.#record(row);
    }
    try {
      const inserted = await repo.insertHandle(this.deps.db, reg, this.deps.log ?? true);
      this.deps.metrics?.registered();
      return this.#record(inserted);
    } catch (err) {
      if (isUniqueViolation(err, HANDLE_PKEY)) throw relayErrors.handleTaken(handle);
      if (isUniqueViolation(err, HANDLE_PRIMARY_UNIQUE)) throw relayErrors.primaryTaken();
      throw err;
    }
  }

  /** Forward lookup; a malformed or reserved handle is simply not registered (404). */
  async lookup(rawHandle: string): Promise<HandleRecord> {
    const handle = foldHandle(rawHandle);
    const row = isValidHandle(handle) ? await repo.findHandle(this.deps.db, handle) : undefined;
    if (!row) throw relayErrors.unknownHandle();
    return this.#record(row);
  }

  /** Reverse lookup by `ed25519:<64 hex>` (either case); 400 when unparsable. */
  async byPrimary(rawPrimary: string): Promise<HandleRecord> {
    const primary = parsePrimary(rawPrimary);
    if (!primary) throw relayErrors.invalidPrimary();
    const row = await repo.findByPrimary(this.deps.db, formatPrimary(primary));
    if (!row) throw relayErrors.unknownPrimary();
    return this.#record(row);
  }

  /**
   * Replaces a handle's proofs. Order of checks: handle valid (400), exists (404),
   * `X-ID-Auth` verifies (401), at most 64 proofs (400), then each entry (400).
   */
  async setProofs(
    rawHandle: string,
    auth: string | undefined,
    rawBody: Buffer | undefined,
  ): Promise<void> {
    const handle = requireValidHandle(rawHandle);
    const row = await repo.findHandle(this.deps.db, handle);
    if (!row) throw relayErrors.unknownHandle();
    const lines = (spelled: string) => ['PUT', `/v1/profile/${spelled}/proofs`];
    verifySignedRequest({
      value: auth,
      primary: row.primary_key,
      lines: lines(handle),
      spelledLines: lines(rawHandle),
      now: this.deps.now(),
    });
    const { proofs } = validate(proofsBodySchema, parseJsonBody(rawBody));
    if (proofs.length > PROOFS_MAX) throw relayErrors.tooManyProofs(PROOFS_MAX);
    const entries = proofs.map((p) => validate(proofEntrySchema, p));
    if (!(await repo.setProofs(this.deps.db, handle, entries))) throw relayErrors.unknownHandle();
  }
}
