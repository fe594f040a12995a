import fs from 'node:fs/promises';
import path from 'node:path';
import { fromHex, toHex } from './hex.js';
import { keyPairFromSecret, primaryOf, type KeyPair } from './keys.js';

/** On-disk shape of a key file (JSON). The secret never leaves it unencrypted elsewhere. */
export interface KeyFileContent {
  alg: 'ed25519';
  primary: string;
  public_key: string;
  secret_key: string;
}

/**
 * Writes a key pair as JSON with mode 0600; refuses to overwrite an existing file so a key
 * that owns a handle is never lost by accident.
 */
export async function writeKeyFile(file: string, pair: KeyPair): Promise<void> {
  const content: KeyFileContent = {
    alg: 'ed25519',
    primary: primaryOf(pair.publicKey),
    public_key: toHex(pair.publicKey),
    secret_key: toHex(pair.secretKey),
  };
  await fs.mkdir(path.dirname(path.resolve(file)), { recursive: true });
  const handle = await fs.open(file, 'wx', 0o600);
  try {
    await handle.writeFile(`${JSON.stringify(content, null, 2)}\n`);
    await handle.chmod(0o600);
  } finally {
    await handle.close();
  }
}

/** Reads a key file written by `writeKeyFile`; throws when it is not one. */
export async function readKeyFile(file: string): Promise<KeyPair> {
  const parsed = JSON.parse(await fs.readFile(file, 'utf8')) as Partial<KeyFileContent>;
  if (parsed.alg !== 'ed25519' || typeof parsed.secret_key !== 'string') {
    throw new Error(`${file} is not an ed25519 key file`);
  }
  const pair = keyPairFromSecret(fromHex(parsed.secret_key));
  if (typeof parsed.public_key === 'string' && parsed.public_key !== toHex(pair.publicKey)) {
    throw new Error(`${file}: public_key does not match secret_key`);
  }
  return pair;
}
