import { createPublicKey, generateKeyPairSync, randomBytes, verify } from 'node:crypto';
import nacl from 'tweetnacl';
import { toHex } from '../client/hex.js';
import {
  hasSmallOrder,
  KEY_CACHE_LIMIT,
  keyCacheSize,
  publicKeyFromHex,
  verifyEd25519,
} from './ed25519.js';

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

  // The points of order 1, 2, 4 and 8, in each encoding a key may use: y, y + p where that
  // still fits, and x of either sign.
  const SMALL_ORDER_KEYS = [
    `01${'00'.repeat(31)}`,
    `ee${'ff'.repeat(30)}7f`,
    `ec${'ff'.repeat(30)}7f`,
    `ec${'ff'.repeat(30)}ff`,
    '00'.repeat(32),
    `${'00'.repeat(31)}80`,
    `ed${'ff'.repeat(30)}7f`,
    '26e8958fc2b227b045c3f489f2ef98f0d5dfac05d3c63339b13802886d53fc05',
    '26e8958fc2b227b045c3f489f2ef98f0d5dfac05d3c63339b13802886d53fc85',
    'c7176a703d4dd84fba3c0b760d10670f2a2053fa2c39ccc64ec7fd7792ac037a',
    'c7176a703d4dd84fba3c0b760d10670f2a2053fa2c39ccc64ec7fd7792ac03fa',
  ];
  // R the identity point and S = 0: valid for every message under a key of small order.
  const FORGED = `01${'00'.repeat(63)}`;

  it('refuses keys of small order, under which a forged signature verifies anything', () => {
    const identity = createPublicKey({
      key: {
        kty: 'OKP',
        crv: 'Ed25519',
        x: Buffer.from(SMALL_ORDER_KEYS[0]!, 'hex').toString('base64url'),
      },
      format: 'jwk',
    });
    // OpenSSL 3.0 (Node 20's) accepts the forgery; 3.5 (Node 24's) refuses it itself. The relay
    // refuses it whichever one it runs on.
    const openssl30 = process.versions.openssl.startsWith('3.0.');
    expect(verify(null, message, identity, Buffer.from(FORGED, 'hex'))).toBe(openssl30);
    for (const key of SMALL_ORDER_KEYS) {
      expect(hasSmallOrder(Buffer.from(key, 'hex'))).toBe(true);
      expect(publicKeyFromHex(key)).toBeNull();
      expect(verifyEd25519(key, message, FORGED)).toBe(false);
    }
  });

  it('takes every real key', () => {
    // Keys from node:crypto: tweetnacl's pure-JavaScript key pairs took 40 s for 500 in CI.
    for (let i = 0; i < 500; i++) {
      const jwk = generateKeyPairSync('ed25519').publicKey.export({ format: 'jwk' });
      expect(hasSmallOrder(Buffer.from(jwk.x!, 'base64url'))).toBe(false);
    }
    expect(verifyEd25519(keyHex, message, sigHex)).toBe(true);
  });
});
