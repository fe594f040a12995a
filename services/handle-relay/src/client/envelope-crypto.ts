import ed2curve from 'ed2curve';
import nacl from 'tweetnacl';
import { fromBase64Url, toBase64Url } from './base64url.js';
import { fromHex, toHex, utf8 } from './hex.js';
import { primaryOf, type KeyPair } from './keys.js';

/** The one cipher suite of envelope version 1 (CONTRACT, "end-to-end encrypted envelopes"). */
export const ENVELOPE_ALG = 'x25519-xsalsa20poly1305';

/** A version-1 envelope as the relay stores it; it carries no plaintext. */
export interface EnvelopeV1 {
  v: 1;
  alg: typeof ENVELOPE_ALG;
  from: string;
  nonce: string;
  ciphertext: string;
}

/** The plaintext inside a version-1 envelope (readers ignore unknown members). */
export interface TextPlaintext {
  type: 'text';
  text: string;
  to: string;
  sent_at: string;
}

/**
 * The plaintext of a sender's own copy of a message it sent (CONTRACT, "Additions, part 2"):
 * sealed from the sender's key to the same key and stored in the sender's own inbox, so
 * every device holding the key shows both sides of a conversation.
 */
export interface SentPlaintext {
  type: 'sent';
  /** The peer the message went to (`handle@server`). */
  to: string;
  text: string;
  sent_at: string;
}

/** An envelope that opened: its sender's key and the text. */
export interface OpenedText {
  from: string;
  text: string;
  to: string;
  sent_at: string;
}

/** Any envelope that opened: a text to us, or a copy of one we sent (`to` is the peer). */
export type OpenedMessage = (OpenedText & { type: 'text' }) | (OpenedText & { type: 'sent' });

/** Why an envelope did not open; `message` is fit to show a user. */
export class EnvelopeError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'EnvelopeError';
  }
}

/** Every reason an envelope is refused, spelled once. */
export const envelopeErrors = {
  notV1: () => new EnvelopeError('not a version-1 envelope'),
  badAlg: (alg: unknown) => new EnvelopeError(`unsupported envelope alg ${JSON.stringify(alg)}`),
  badField: (name: string) => new EnvelopeError(`envelope ${name} is malformed`),
  badKey: (which: string) => new EnvelopeError(`${which} is not a usable ed25519 key`),
  doesNotOpen: () =>
    new EnvelopeError('envelope does not open with this key (not for us, or altered)'),
  notText: () => new EnvelopeError('plaintext is not a text message'),
  notOurs: (to: string, ours: string) =>
    new EnvelopeError(`message is addressed to ${to}, not to ${ours}`),
  foreignCopy: () => new EnvelopeError('a copy of a sent message that this key did not write'),
};

const PRIMARY = /^ed25519:([0-9a-fA-F]{64})$/;

/** The X25519 public key of an `ed25519:<hex>` primary (libsodium's pk_to_curve25519). */
function curvePublicOf(primary: string, which: string): Uint8Array {
  const hex = PRIMARY.exec(primary)?.[1];
  const curve = hex === undefined ? null : ed2curve.convertPublicKey(fromHex(hex));
  if (!curve) throw envelopeErrors.badKey(which);
  return curve;
}

/**
 * Shared keys by peer and own key: deriving one costs two X25519 multiplications, milliseconds
 * in JavaScript, and a thread of a thousand messages from one sender needs only the one.
 */
const sharedKeys = new Map<string, Uint8Array>();
const SHARED_KEYS_KEPT = 256;

/**
 * The shared key of `box`, refusing a peer key of small order: with one the shared secret
 * is all zeros, known to anyone, so such an envelope proves nothing about its sender.
 */
function sharedKey(theirCurvePublic: Uint8Array, mine: KeyPair, which: string): Uint8Array {
  const id = `${toHex(theirCurvePublic)}:${toHex(mine.publicKey)}`;
  const known = sharedKeys.get(id);
  if (known) return known;
  const mySecret = ed2curve.convertSecretKey(mine.secretKey);
  if (nacl.scalarMult(mySecret, theirCurvePublic).every((b) => b === 0)) {
    throw envelopeErrors.badKey(which);
  }
  const key = nacl.box.before(theirCurvePublic, mySecret);
  if (sharedKeys.size >= SHARED_KEYS_KEPT) sharedKeys.clear();
  sharedKeys.set(id, key);
  return key;
}

/** What to seal: the text, the recipient's `handle@server` and published primary. */
export interface SealInput {
  text: string;
  /** The recipient's `handle@server` (its record's `fqhn`). */
  to: string;
  recipientPrimary: string;
  sender: KeyPair;
  /** 24 bytes; random unless given (test vectors fix it). */
  nonce?: Uint8Array;
  /** RFC 3339; now unless given. */
  sentAt?: string;
}

/** Encrypts a text to a recipient as a version-1 envelope. */
export function sealText(input: SealInput): EnvelopeV1 {
  const plaintext: TextPlaintext = {
    type: 'text',
    text: input.text,
    to: input.to,
    sent_at: input.sentAt ?? new Date().toISOString(),
  };
  return seal(plaintext, input.recipientPrimary, input.sender, input.nonce);
}

/** What a sender's own copy holds: the text, the peer's `handle@server`, the sender. */
export interface SentCopyInput {
  text: string;
  /** The peer the message went to (its record's `fqhn`). */
  to: string;
  sender: KeyPair;
  nonce?: Uint8Array;
  /** The sent message's own `sent_at`, so both copies say the same time. */
  sentAt?: string;
}

/** Encrypts the sender's own copy of a sent message, to the sender's own key. */
export function sealSentCopy(input: SentCopyInput): EnvelopeV1 {
  const plaintext: SentPlaintext = {
    type: 'sent',
    to: input.to,
    text: input.text,
    sent_at: input.sentAt ?? new Date().toISOString(),
  };
  return seal(plaintext, primaryOf(input.sender.publicKey), input.sender, input.nonce);
}

function seal(
  plaintext: TextPlaintext | SentPlaintext,
  recipientPrimary: string,
  sender: KeyPair,
  givenNonce: Uint8Array | undefined,
): EnvelopeV1 {
  const nonce = givenNonce ?? nacl.randomBytes(nacl.box.nonceLength);
  if (nonce.length !== nacl.box.nonceLength) throw envelopeErrors.badField('nonce');
  const key = sharedKey(curvePublicOf(recipientPrimary, 'recipient key'), sender, 'recipient key');
  const ciphertext = nacl.box.after(utf8(JSON.stringify(plaintext)), nonce, key);
  return {
    v: 1,
    alg: ENVELOPE_ALG,
    from: primaryOf(sender.publicKey),
    nonce: toBase64Url(nonce),
    ciphertext: toBase64Url(ciphertext),
  };
}

function bytesField(envelope: Record<string, unknown>, name: string): Uint8Array {
  const value = envelope[name];
  if (typeof value !== 'string') throw envelopeErrors.badField(name);
  try {
    return fromBase64Url(value);
  } catch {
    throw envelopeErrors.badField(name);
  }
}

/** Whether a value is shaped like a version-1 envelope (opening may still fail). */
export function isEnvelopeV1(value: unknown): value is EnvelopeV1 {
  return typeof value === 'object' && value !== null && (value as { v?: unknown }).v === 1;
}

/**
 * Opens a received text message with the recipient's keys. `me` is the recipient's
 * `handle@server`: a plaintext addressed elsewhere (an envelope forwarded by someone it was
 * sent to) is refused. Throws an EnvelopeError saying why it did not open.
 */
export function openEnvelope(envelope: unknown, keys: KeyPair, me: string): OpenedText {
  const opened = openMessage(envelope, keys, me);
  if (opened.type !== 'text') throw envelopeErrors.notText();
  const { from, text, to, sent_at } = opened;
  return { from, text, to, sent_at };
}

/**
 * Opens anything found in an inbox: a text addressed to `me`, or a copy of a message this
 * key sent (`type: "sent"`, sealed by this very key; `to` is then the peer). Throws an
 * EnvelopeError saying why it did not open.
 */
export function openMessage(envelope: unknown, keys: KeyPair, me: string): OpenedMessage {
  if (!isEnvelopeV1(envelope)) throw envelopeErrors.notV1();
  const fields = envelope as unknown as Record<string, unknown>;
  if (fields.alg !== ENVELOPE_ALG) throw envelopeErrors.badAlg(fields.alg);
  if (typeof fields.from !== 'string') throw envelopeErrors.badField('from');
  const nonce = bytesField(fields, 'nonce');
  if (nonce.length !== nacl.box.nonceLength) throw envelopeErrors.badField('nonce');
  const ciphertext = bytesField(fields, 'ciphertext');
  const key = sharedKey(curvePublicOf(fields.from, 'sender key'), keys, 'sender key');
  const opened = nacl.box.open.after(ciphertext, nonce, key);
  if (!opened) throw envelopeErrors.doesNotOpen();
  let plain: unknown;
  try {
    plain = JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(opened));
  } catch {
    throw envelopeErrors.notText();
  }
  const p = plain as Partial<Record<keyof TextPlaintext, unknown>> | null;
  if (
    typeof p !== 'object' ||
    p === null ||
    (p.type !== 'text' && p.type !== 'sent') ||
    typeof p.text !== 'string' ||
    typeof p.to !== 'string' ||
    typeof p.sent_at !== 'string'
  ) {
    throw envelopeErrors.notText();
  }
  const from = fields.from.toLowerCase();
  if (p.type === 'sent') {
    // Only the key itself writes its copies: a copy from any other key is a forgery.
    if (from !== primaryOf(keys.publicKey)) throw envelopeErrors.foreignCopy();
    return { type: 'sent', from, text: p.text, to: p.to, sent_at: p.sent_at };
  }
  if (p.to.toLowerCase() !== me.toLowerCase()) throw envelopeErrors.notOurs(p.to, me);
  return { type: 'text', from, text: p.text, to: p.to, sent_at: p.sent_at };
}
