import sodium from 'libsodium-wrappers';
import { toBase64Url } from './base64url.js';
import {
  openEnvelope,
  openMessage,
  sealSentCopy,
  sealText,
  type EnvelopeV1,
} from './envelope-crypto.js';
import { fromHex } from './hex.js';
import { keyPairFromSeed, primaryOf, type KeyPair } from './keys.js';

// The published vectors (docs/envelope-v1.md): seeds of 32 bytes 0x01 (alice) and 0x02
// (bob), fixed nonces and times, so any implementation can check itself against them.
const alice = keyPairFromSeed(new Uint8Array(32).fill(1));
const bob = keyPairFromSeed(new Uint8Array(32).fill(2));
const ALICE = 'ed25519:8a88e3dd7409f195fd52db2d3cba5d72ca6709bf1d94121bf3748801b40f6f5c';
const BOB = 'ed25519:8139770ea87d175f56a35466c34c7ecccb8d8a91b4ee37a25df60f5b8fc9b394';
const VECTORS = [
  {
    name: 'alice to bob, nonce 00..17',
    sender: alice,
    recipient: bob,
    to: 'bob@localhost',
    text: 'hello bob',
    nonce: Uint8Array.from({ length: 24 }, (_, i) => i),
    sentAt: '2026-11-26T12:00:00.000Z',
    envelope: {
      v: 1,
      alg: 'x25519-xsalsa20poly1305',
      from: ALICE,
      nonce: 'AAECAwQFBgcICQoLDA0ODxAREhMUFRYX',
      ciphertext:
        'ZjKY0f346g0RpD0CzH1My7haqdssBI7Y4tO2BgqeMO1u3k24YXERT_1N_HHgLzNl-CbKc7PU49DQl8Og5ndIGzrpgag9hriqvS2yzGMAhOCnckYMhyiluekwdptYt12m82kaNww7Ec-O8w8g',
    },
  },
  {
    name: 'bob to alice, non-ASCII text, nonce ff..ff',
    sender: bob,
    recipient: alice,
    to: 'alice@localhost',
    text: 'héllo 👋',
    nonce: new Uint8Array(24).fill(0xff),
    sentAt: '2026-11-26T12:00:01.000Z',
    envelope: {
      v: 1,
      alg: 'x25519-xsalsa20poly1305',
      from: BOB,
      nonce: '________________________________',
      ciphertext:
        'ywO9Z7i7byPjIEJrSNMBf2a86gJ5_37cABqFKauHZBml3bunXMoUmouyKaaBkJvLxSw93HFHQTr5FBC-1Xzj6wyw4bA_tV1Mv133fvhiojR-5xRVHFmIMk-O9cORSs_dqW9o7Czkt9nDDcbvOjGvbA',
    },
  },
];

/** libsodium's own X25519 keys of an Ed25519 pair (the contract's birational map). */
function sodiumCurve(pair: KeyPair) {
  return {
    publicKey: sodium.crypto_sign_ed25519_pk_to_curve25519(pair.publicKey),
    privateKey: sodium.crypto_sign_ed25519_sk_to_curve25519(pair.secretKey),
  };
}

beforeAll(async () => {
  await sodium.ready;
});

describe('envelope version 1', () => {
  it('has the published primaries for the vector seeds', () => {
    expect([primaryOf(alice.publicKey), primaryOf(bob.publicKey)]).toEqual([ALICE, BOB]);
  });

  it.each(VECTORS)('seals the published vector: $name', (v) => {
    const sealed = sealText({
      text: v.text,
      to: v.to,
      recipientPrimary: primaryOf(v.recipient.publicKey),
      sender: v.sender,
      nonce: v.nonce,
      sentAt: v.sentAt,
    });
    expect(sealed).toEqual(v.envelope);
  });

  it.each(VECTORS)('opens the published vector: $name', (v) => {
    expect(openEnvelope(v.envelope, v.recipient, v.to)).toEqual({
      from: v.envelope.from,
      text: v.text,
      to: v.to,
      sent_at: v.sentAt,
    });
  });

  it.each(VECTORS)('libsodium seals the same bytes as the vector: $name', (v) => {
    const plaintext = JSON.stringify({ type: 'text', text: v.text, to: v.to, sent_at: v.sentAt });
    const ciphertext = sodium.crypto_box_easy(
      plaintext,
      v.nonce,
      sodiumCurve(v.recipient).publicKey,
      sodiumCurve(v.sender).privateKey,
    );
    expect(toBase64Url(ciphertext)).toBe(v.envelope.ciphertext);
  });

  it('opens an envelope that libsodium made, with a random nonce', () => {
    const nonce = sodium.randombytes_buf(sodium.crypto_box_NONCEBYTES);
    const plaintext = JSON.stringify({
      sent_at: '2026-11-26T13:00:00.000Z',
      to: 'Bob@Localhost',
      text: 'from libsodium',
      type: 'text',
      extra: { ignored: true },
    });
    const envelope = {
      v: 1,
      alg: 'x25519-xsalsa20poly1305',
      from: ALICE,
      nonce: sodium.to_base64(nonce, sodium.base64_variants.URLSAFE_NO_PADDING),
      ciphertext: sodium.to_base64(
        sodium.crypto_box_easy(
          plaintext,
          nonce,
          sodiumCurve(bob).publicKey,
          sodiumCurve(alice).privateKey,
        ),
        sodium.base64_variants.URLSAFE_NO_PADDING,
      ),
    };
    expect(openEnvelope(envelope, bob, 'bob@localhost')).toEqual({
      from: ALICE,
      text: 'from libsodium',
      to: 'Bob@Localhost',
      sent_at: '2026-11-26T13:00:00.000Z',
    });
  });

  it('seals an envelope that libsodium opens', () => {
    const envelope = sealText({
      text: 'to libsodium',
      to: 'bob@localhost',
      recipientPrimary: BOB,
      sender: alice,
    });
    const opened = sodium.crypto_box_open_easy(
      sodium.from_base64(envelope.ciphertext, sodium.base64_variants.URLSAFE_NO_PADDING),
      sodium.from_base64(envelope.nonce, sodium.base64_variants.URLSAFE_NO_PADDING),
      // The sender's key as the envelope names it, converted by libsodium.
      sodium.crypto_sign_ed25519_pk_to_curve25519(fromHex(envelope.from.slice('ed25519:'.length))),
      sodiumCurve(bob).privateKey,
      'text',
    );
    expect(JSON.parse(opened)).toEqual({
      type: 'text',
      text: 'to libsodium',
      to: 'bob@localhost',
      sent_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/) as unknown,
    });
    expect(envelope.nonce).toMatch(/^[A-Za-z0-9_-]{32}$/);
  });
});

describe('opening refuses, saying why', () => {
  const good = VECTORS[0]!.envelope;
  const flip = (text: string) => (text[0] === 'A' ? 'B' : 'A') + text.slice(1);
  it.each([
    ['a value that is no envelope', 'hello', 'not a version-1 envelope'],
    ['another version', { ...good, v: 2 }, 'not a version-1 envelope'],
    ['another alg', { ...good, alg: 'aes' }, 'unsupported envelope alg "aes"'],
    ['a nonce of the wrong size', { ...good, nonce: 'AAAA' }, 'envelope nonce is malformed'],
    [
      'a ciphertext that is not base64url',
      { ...good, ciphertext: 'a+b=' },
      'envelope ciphertext is malformed',
    ],
    [
      'an altered ciphertext',
      { ...good, ciphertext: flip(good.ciphertext) },
      'envelope does not open with this key (not for us, or altered)',
    ],
    [
      'another sender key',
      { ...good, from: BOB },
      'envelope does not open with this key (not for us, or altered)',
    ],
    [
      'a sender key that is no key',
      { ...good, from: 'ed25519:zz' },
      'sender key is not a usable ed25519 key',
    ],
    [
      'a sender key of small order',
      { ...good, from: `ed25519:01${'00'.repeat(31)}` },
      'sender key is not a usable ed25519 key',
    ],
  ])('%s', (_what, envelope, message) => {
    expect(() => openEnvelope(envelope, bob, 'bob@localhost')).toThrow(message);
  });

  it('an envelope addressed to someone else, forwarded to us', () => {
    expect(() => openEnvelope(good as EnvelopeV1, bob, 'robert@localhost')).toThrow(
      'message is addressed to bob@localhost, not to robert@localhost',
    );
  });
});

describe('a sender’s own copy (type "sent")', () => {
  it('is sealed to the sender’s own key, opens for it with the peer in `to`', () => {
    const copy = sealSentCopy({
      text: 'hello bob',
      to: 'bob@localhost',
      sender: alice,
      sentAt: '2026-11-26T12:00:00.000Z',
    });
    expect(copy.from).toBe(ALICE);
    expect(openMessage(copy, alice, 'alice@localhost')).toEqual({
      type: 'sent',
      from: ALICE,
      to: 'bob@localhost',
      text: 'hello bob',
      sent_at: '2026-11-26T12:00:00.000Z',
    });
    // libsodium opens it with the same key on both sides.
    const plain = sodium.crypto_box_open_easy(
      sodium.from_base64(copy.ciphertext, sodium.base64_variants.URLSAFE_NO_PADDING),
      sodium.from_base64(copy.nonce, sodium.base64_variants.URLSAFE_NO_PADDING),
      sodiumCurve(alice).publicKey,
      sodiumCurve(alice).privateKey,
      'text',
    );
    expect(Object.keys(JSON.parse(plain) as object)).toEqual(['type', 'to', 'text', 'sent_at']);
    // Not a text to anyone: the text-only reader refuses it; bob cannot open it.
    expect(() => openEnvelope(copy, alice, 'alice@localhost')).toThrow(
      'plaintext is not a text message',
    );
    expect(() => openMessage(copy, bob, 'bob@localhost')).toThrow('does not open');
  });

  it('a "sent" plaintext from another key is refused as a forgery', () => {
    const nonce = new Uint8Array(24);
    const forged = {
      v: 1,
      alg: 'x25519-xsalsa20poly1305',
      from: BOB,
      nonce: toBase64Url(nonce),
      ciphertext: toBase64Url(
        sodium.crypto_box_easy(
          JSON.stringify({ type: 'sent', to: 'carol@localhost', text: 'x', sent_at: 'now' }),
          nonce,
          sodiumCurve(alice).publicKey,
          sodiumCurve(bob).privateKey,
        ),
      ),
    };
    expect(() => openMessage(forged, alice, 'alice@localhost')).toThrow(
      'a copy of a sent message that this key did not write',
    );
  });
});
