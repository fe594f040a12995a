import { randomBytes } from 'node:crypto';
import nacl from 'tweetnacl';
import { toHex } from '../client/hex.js';
import { KEY_CACHE_LIMIT, keyCacheSize, publicKeyFromHex, verifyEd25519 } from './ed25519.js';

describe('Ed25519 verification through node:crypto', () => {
  const pair = nacl.sign.keyPair();
  const keyHex = toHex(pair.publicKey);
  const message = new TextEncoder().encode('hello relay');
  const sigHex = toHex(nacl.sign.detached(message, pair.secretKey));

  it('verifies a tweetnacl signature and refuses a changed message or signature', () => {
    expect(verifyEd25519(keyHex, message, sigHex)).toBe(true);
    expect(verifyEd25519(keyHex, new TextEncoder().encode('hello relaY'), sigHex)).toBe(false);
    const flipped = `${sigHex.slice(0, -1)}${sigHex.endsWith('0') ? '1' : '0'}`;
    expect(verifyEd25519(keyHex, message, flipped)).toBe(false);
  });

  it('treats malformed signatures and keys as not verifying', () => {
    expect(verifyEd25519(keyHex, message, sigHex.slice(2))).toBe(false);
    expect(verifyEd25519(keyHex, message, `zz${sigHex.slice(2)}`)).toBe(false);
    expect(verifyEd25519(keyHex.slice(2), message, sigHex)).toBe(false);
    expect(verifyEd25519(keyHex.toUpperCase(), message, sigHex)).toBe(false);
    expect(publicKeyFromHex('not hex')).toBeNull();
  });

  it('parses each key once and keeps at most KEY_CACHE_LIMIT keys', () => {
    expect(publicKeyFromHex(keyHex)).toBe(publicKeyFromHex(keyHex));
    for (let i = 0; i <= KEY_CACHE_LIMIT; i++) publicKeyFromHex(randomBytes(32).toString('hex'));
    expect(keyCacheSize()).toBe(KEY_CACHE_LIMIT);
    expect(verifyEd25519(keyHex, message, sigHex)).toBe(true);
  });
});
