import { createDecipheriv, createECDH, hkdfSync, randomBytes } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';

/** A browser-side subscription key pair (P-256) and auth secret, as a browser makes them. */
export interface BrowserKeys {
  p256dh: string;
  auth: string;
  privateKey: Buffer;
  publicKey: Buffer;
  authSecret: Buffer;
}

/** New subscription keys. */
export function browserKeys(): BrowserKeys {
  const ecdh = createECDH('prime256v1');
  ecdh.generateKeys();
  const authSecret = randomBytes(16);
  return {
    p256dh: ecdh.getPublicKey().toString('base64url'),
    auth: authSecret.toString('base64url'),
    privateKey: ecdh.getPrivateKey(),
    publicKey: ecdh.getPublicKey(),
    authSecret,
  };
}

/**
 * Decrypts an RFC 8291 `aes128gcm` Web Push body with the subscription's private key:
 * header (salt, record size, sender key), ECDH, the two HKDF stages, AES-128-GCM, and the
 * padding delimiter of the last record.
 */
export function decryptPush(body: Buffer, keys: BrowserKeys): string {
  const salt = body.subarray(0, 16);
  const idLength = body.readUInt8(20);
  const senderKey = body.subarray(21, 21 + idLength);
  const ciphertext = body.subarray(21 + idLength);
  const ecdh = createECDH('prime256v1');
  ecdh.setPrivateKey(keys.privateKey);
  const shared = ecdh.computeSecret(senderKey);
  const keyInfo = Buffer.concat([Buffer.from('WebPush: info\0'), keys.publicKey, senderKey]);
  const ikm = Buffer.from(hkdfSync('sha256', shared, keys.authSecret, keyInfo, 32));
  const cek = Buffer.from(
    hkdfSync('sha256', ikm, salt, Buffer.from('Content-Encoding: aes128gcm\0'), 16),
  );
  const nonce = Buffer.from(
    hkdfSync('sha256', ikm, salt, Buffer.from('Content-Encoding: nonce\0'), 12),
  );
  const decipher = createDecipheriv('aes-128-gcm', cek, nonce);
  decipher.setAuthTag(ciphertext.subarray(ciphertext.length - 16));
  const padded = Buffer.concat([
    decipher.update(ciphertext.subarray(0, ciphertext.length - 16)),
    decipher.final(),
  ]);
  const delimiter = padded.lastIndexOf(2);
  return padded.subarray(0, delimiter).toString('utf8');
}

/** One request the local push service received. */
export interface ReceivedPush {
  path: string;
  headers: http.IncomingHttpHeaders;
  body: Buffer;
}

/** A local HTTP push service: records requests and answers with `status` (per path). */
export interface PushEndpoint {
  url: string;
  received: ReceivedPush[];
  /** Answer status per path (default 201). */
  statusFor: Map<string, number>;
  /** While set, requests are held unanswered until `release()`. */
  hold: boolean;
  release(): void;
  close(): Promise<void>;
}

/** Starts a push service on a loopback port. */
export async function startPushEndpoint(): Promise<PushEndpoint> {
  const held: (() => void)[] = [];
  const endpoint: PushEndpoint = {
    url: '',
    received: [],
    statusFor: new Map(),
    hold: false,
    release: () => {
      endpoint.hold = false;
      for (const answer of held.splice(0)) answer();
    },
    close: () =>
      new Promise((resolve) => {
        endpoint.release();
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const path = req.url ?? '/';
      endpoint.received.push({ path, headers: req.headers, body: Buffer.concat(chunks) });
      const answer = () => res.writeHead(endpoint.statusFor.get(path) ?? 201).end();
      if (endpoint.hold) held.push(answer);
      else answer();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  endpoint.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return endpoint;
}
