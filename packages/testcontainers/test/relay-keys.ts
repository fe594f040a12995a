import crypto from 'node:crypto';

/** An Ed25519 identity as handle-relay knows it: `primary` is `ed25519:<64 hex>`. */
export interface RelayIdentity {
  primary: string;
  sign(text: string): string;
}

/** A fresh identity; signatures are hex, over the UTF-8 text (node:crypto, no client library). */
export function newIdentity(): RelayIdentity {
  const { publicKey, privateKey } = crypto.generateKeyPairSync('ed25519');
  const raw = publicKey.export({ format: 'der', type: 'spki' }).subarray(-32);
  return {
    primary: `ed25519:${raw.toString('hex')}`,
    sign: (text) => crypto.sign(null, Buffer.from(text, 'utf8'), privateKey).toString('hex'),
  };
}

/** The signed body of `POST /v1/register`; a flat payload's RFC 8785 form is its sorted keys. */
export function registration(id: RelayIdentity, server: string, handle: string): unknown {
  const payload = { handle, primary: id.primary, server, ts: Math.floor(Date.now() / 1000) };
  return {
    payload,
    signature: {
      alg: 'ed25519-sha512-jcs',
      key: id.primary,
      sig: id.sign(JSON.stringify(payload)),
    },
  };
}

/** An `X-ID-Auth` value over the operation's lines and the current time. */
export function idAuth(id: RelayIdentity, lines: string[]): string {
  const ts = Math.floor(Date.now() / 1000);
  return `${ts}:${id.sign([...lines, String(ts)].join('\n'))}`;
}
