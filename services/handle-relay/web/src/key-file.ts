import { keyPairFromSecret, primaryOf, toHex, type KeyPair } from '../../src/client/index.js';

/** Why a key file was refused, in words a person can act on. */
export class BadKeyFile extends Error {}

/** The CLI's key file (`handle-relay keygen`): JSON with hex keys. */
export function keyFileText(keys: KeyPair): string {
  const content = {
    alg: 'ed25519',
    primary: primaryOf(keys.publicKey),
    public_key: toHex(keys.publicKey),
    secret_key: toHex(keys.secretKey),
  };
  return `${JSON.stringify(content, null, 2)}\n`;
}

/** Reads a key file's text; throws BadKeyFile saying what is wrong. */
export function parseKeyFile(text: string): KeyPair {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new BadKeyFile('That file is not a key file: it is not JSON.');
  }
  const file = parsed as { alg?: unknown; secret_key?: unknown; public_key?: unknown } | null;
  if (file?.alg !== 'ed25519' || typeof file.secret_key !== 'string') {
    throw new BadKeyFile('That file is not a Handle Relay key file (no ed25519 secret key).');
  }
  if (!/^[0-9a-fA-F]{128}$/.test(file.secret_key)) {
    throw new BadKeyFile('That key file is damaged: its secret key is not 64 bytes of hex.');
  }
  const keys = keyPairFromSecret(file.secret_key);
  if (
    typeof file.public_key === 'string' &&
    file.public_key.toLowerCase() !== toHex(keys.publicKey)
  ) {
    throw new BadKeyFile('That key file is damaged: its public key does not match its secret key.');
  }
  return keys;
}

/** Offers the key file as a download named like the CLI's default. */
export function downloadKeyFile(keys: KeyPair): void {
  const url = URL.createObjectURL(new Blob([keyFileText(keys)], { type: 'application/json' }));
  const link = document.createElement('a');
  link.href = url;
  link.download = 'handle-relay.key.json';
  link.click();
  setTimeout(() => URL.revokeObjectURL(url), 1_000);
}
