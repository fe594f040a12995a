import type { Kysely } from 'kysely';
import type { Config } from '../config.js';
import type { Database } from '../db/database.js';
import { relayErrors } from '../errors.js';
import { sigchainUrl } from '../handles/handle-record.js';
import { foldHandle, fqhn, isValidHandle, sameServer } from '../handles/handle-rules.js';
import { findHandle } from '../handles/handle.repository.js';

/** A JSON Resource Descriptor (RFC 7033) as the relay answers it. */
export interface Jrd {
  subject: string;
  links: { rel: string; type: string; href: string }[];
}

/** What WebFinger needs. */
export interface WebFingerDeps {
  db: Kysely<Database>;
  config: Pick<Config, 'server' | 'sig_server_url' | 'spec_base'>;
}

const ACCT = 'acct:';

/** WebFinger's rules: which `acct:` resources this server answers for, and with what. */
export class WebFingerService {
  constructor(private readonly deps: WebFingerDeps) {}

  /** Resolves `acct:<handle>@<server>` to the handle's JRD, per the spec's WebFinger rules. */
  async resolve(resource: unknown): Promise<Jrd> {
    const { config } = this.deps;
    if (resource === undefined || resource === '') {
      throw relayErrors.resourceMissing();
    }
    if (typeof resource !== 'string') {
      throw relayErrors.resourceRepeated();
    }
    if (!resource.toLowerCase().startsWith(ACCT)) throw relayErrors.resourceNotAcct();
    // The spec's second step asks only for the `@`: an empty server part is then another
    // server (404), and an empty handle a malformed one, which lookups answer 404 (contract).
    const account = resource.slice(ACCT.length);
    const at = account.lastIndexOf('@');
    if (at < 0) throw relayErrors.resourceNotAccount();
    if (!sameServer(account.slice(at + 1), config.server)) {
      throw relayErrors.resourceElsewhere();
    }
    const handle = foldHandle(account.slice(0, at));
    const row = isValidHandle(handle) ? await findHandle(this.deps.db, handle) : undefined;
    if (!row) throw relayErrors.unknownHandle();
    const specBase = config.spec_base.replace(/\/+$/, '');
    return {
      subject: `acct:${fqhn(row.handle, config.server)}`,
      links: [
        {
          rel: `${specBase}/v1/handle`,
          type: 'application/json',
          href: `https://${config.server}/v1/u/${row.handle}`,
        },
        {
          rel: `${specBase}/v1/sigchain`,
          type: 'application/jsonl',
          href: sigchainUrl(config.sig_server_url, row.primary_key),
        },
      ],
    };
  }
}
