import type { Config } from '../config.js';
import { fqhn } from './handle-rules.js';
import type { HandleRow } from './handle.table.js';

/** A handle record as every lookup and the registration answer it. */
export interface HandleRecord {
  handle: string;
  fqhn: string;
  primary: string;
  sigchain_url: string;
  registered_at: string;
  proofs: string[];
}

/** `<sig_server_url without trailing slash>/v1/sigchains/<scheme>/<value>`. */
export function sigchainUrl(sigServerUrl: string, primary: string): string {
  const colon = primary.indexOf(':');
  const scheme = primary.slice(0, colon);
  const value = primary.slice(colon + 1);
  return `${sigServerUrl.replace(/\/+$/, '')}/v1/sigchains/${scheme}/${value}`;
}

/** The one mapper from a stored row to the public record. */
export function toHandleRecord(
  row: HandleRow,
  config: Pick<Config, 'server' | 'sig_server_url'>,
): HandleRecord {
  return {
    handle: row.handle,
    fqhn: fqhn(row.handle, config.server),
    primary: row.primary_key,
    sigchain_url: sigchainUrl(config.sig_server_url, row.primary_key),
    registered_at: row.registered_at.toISOString(),
    proofs: row.proofs,
  };
}
