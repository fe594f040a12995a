import nacl from 'tweetnacl';
import { fromHex, toHex } from './hex.js';

/** An Ed25519 identity: 32-byte public key and tweetnacl's 64-byte secret key. */
export interface KeyPair {
  publicKey: Uint8Array;
  secretKey: Uint8Array;
}

/** A fresh random key pair. */
export function generateKeyPair(): KeyPair {
  return nacl.sign.keyPair();
}

/** The key pair of a 64-byte secret key (hex or bytes). */
export function keyPairFromSecret(secret: Uint8Array | string): KeyPair {
  const bytes = typeof secret === 'string' ? fromHex(secret) : secret;
  return nacl.sign.keyPair.fromSecretKey(bytes);
}

/** The key pair derived from a 32-byte seed; deterministic, handy in tests. */
export function keyPairFromSeed(seed: Uint8Array): KeyPair {
  return nacl.sign.keyPair.fromSeed(seed);
}

/** The identity string the relay stores: `ed25519:<lowercase hex public key>`. */
export function primaryOf(publicKey: Uint8Array): string {
  return `ed25519:${toHex(publicKey)}`;
}
