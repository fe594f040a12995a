import { isUniqueViolation } from '@svc/database';
import type { Kysely } from 'kysely';
import type { Config } from '../config.js';
import { lineHash } from '../client/merkle.js';
import { linkLine, rotationSignatureProblem, type SigchainLink } from '../client/sigchain.js';
import type { Database } from '../db/database.js';
import { relayErrors } from '../errors.js';
import { parseJsonBody } from '../http/body.js';
import { validate } from '../http/validate.js';
import { toHandleRecord, type HandleRecord } from '../handles/handle-record.js';
import { handleProblem } from '../handles/handle-rules.js';
import { findHandle } from '../handles/handle.repository.js';
import { HANDLE_PRIMARY_UNIQUE } from '../handles/handle.table.js';
import { appendLinks, lockTree } from '../translog/log.repository.js';
import { SIGCHAIN_LINK_HANDLE_SEQ } from '../translog/log.tables.js';
import { chainByKey, lastLink, notifyRotation, setPrimary } from './sigchain.repository.js';
import { rotateLinkSchema } from './sigchain.schemas.js';

/** Allowed distance between the server clock and a link's `ctime`, either way. */
export const LINK_SKEW_SECONDS = 300;

/** What the signature-chain service needs. */
export interface SigchainServiceDeps {
  db: Kysely<Database>;
  config: Pick<Config, 'server' | 'sig_server_url'>;
  now: () => number;
  /** Ring other instances at commit (a PostgreSQL server; one process needs no ring). */
  notifyOthers: boolean;
  /** Told after a rotation commits: this instance closes the streams the old key opened. */
  rotated: (handle: string, oldKey: string) => void;
}

/** Signature chains: serving them, and rotating a handle to a new key. */
export class SigchainService {
  constructor(private readonly deps: SigchainServiceDeps) {}

  /** `GET /v1/sigchains/ed25519/<hex>`: the whole chain of any key the handle ever had. */
  async chain(scheme: string, value: string): Promise<string> {
    if (scheme !== 'ed25519' || !/^[0-9a-fA-F]{64}$/.test(value)) {
      throw relayErrors.unknownSigchain();
    }
    const lines = await chainByKey(this.deps.db, `ed25519:${value.toLowerCase()}`);
    if (lines.length === 0) throw relayErrors.unknownSigchain();
    return `${lines.join('\n')}\n`;
  }

  /**
   * `POST /v1/rotate`. Order of checks: the body is a rotate link (400), of a handle of this
   * server (400) that exists (404), `ctime` within ±5 minutes (400); then, under the log's
   * lock: `prev` is the hash of the chain's last line (else 409, the chain moved on), `seq`
   * follows it (400), `sig` by the key in force and `new_sig` by the new key (401), the new
   * key free (409). The link is in the log and the handle on its new key at commit.
   */
  async rotate(rawBody: Buffer | undefined): Promise<HandleRecord> {
    const body = parseJsonBody(rawBody);
    if (body === undefined) throw relayErrors.invalidRotation('request body must be a rotate link');
    const link: SigchainLink = validate(rotateLinkSchema, body);
    const at = link.handle.lastIndexOf('@');
    const handle = at > 0 ? link.handle.slice(0, at) : '';
    if (at < 0 || link.handle.slice(at + 1) !== this.deps.config.server) {
      throw relayErrors.invalidRotation(`handle must be <handle>@${this.deps.config.server}`);
    }
    const problem = handleProblem(handle);
    if (problem) throw relayErrors.invalidHandle(problem);
    if (!(await findHandle(this.deps.db, handle))) throw relayErrors.unknownHandle();
    if (Math.abs(Math.floor(this.deps.now() / 1000) - link.ctime) > LINK_SKEW_SECONDS) {
      throw relayErrors.invalidRotation(
        `ctime is more than ${LINK_SKEW_SECONDS} s away from server time`,
      );
    }
    const line = linkLine(link);
    let oldKey = '';
    try {
      const row = await this.deps.db.transaction().execute(async (trx) => {
        const tree = await lockTree(trx);
        const last = await lastLink(trx, handle);
        if (!last) throw relayErrors.unknownHandle();
        if (link.prev !== lineHash(last.line)) throw relayErrors.staleRotation();
        if (link.seq !== last.seq + 1) {
          throw relayErrors.invalidRotation(`seq must be ${last.seq + 1}, the link after prev`);
        }
        const sigProblem = rotationSignatureProblem(link, last.key);
        if (sigProblem) throw relayErrors.rotationSignature(sigProblem);
        if (link.key === last.key) {
          throw relayErrors.invalidRotation('key must differ from the key in force');
        }
        oldKey = last.key;
        await setPrimary(trx, handle, link.key);
        await appendLinks(trx, tree, [{ handle, seq: link.seq, key: link.key, line }]);
        if (this.deps.notifyOthers) await notifyRotation(trx, handle, oldKey);
        return findHandle(trx, handle);
      });
      this.deps.rotated(handle, oldKey);
      return toHandleRecord(row!, this.deps.config);
    } catch (err) {
      if (isUniqueViolation(err, HANDLE_PRIMARY_UNIQUE)) throw relayErrors.rotationKeyTaken();
      if (isUniqueViolation(err, SIGCHAIN_LINK_HANDLE_SEQ)) throw relayErrors.staleRotation();
      throw err;
    }
  }
}
