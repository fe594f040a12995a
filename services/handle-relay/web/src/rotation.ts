import {
  generateKeyPair,
  keyPairFromSecret,
  primaryOf,
  rotationLink,
  toHex,
  type RelayClient,
} from '../../src/client/index.js';
import type { ClaimedIdentity, LocalStore } from './local-store.js';

/**
 * Moves this browser's handle to a new key with `POST /v1/rotate`, as the CLI's `rotate`
 * does. The new key is kept first (`nextSecretKey`: a rotation cut short goes on with the
 * same key) and replaces the old one only once the relay acknowledged the rotation; the old
 * one is then kept among `previousSecretKeys`, only to open messages sealed to it before.
 */
export async function rotateKey(client: RelayClient, store: LocalStore): Promise<ClaimedIdentity> {
  const identity = await store.identity();
  if (!identity?.handle || !identity.fqhn) throw new Error('this browser holds no handle');
  const { handle, fqhn } = identity;
  const old = keyPairFromSecret(identity.secretKey);
  let nextHex = identity.nextSecretKey;
  if (!nextHex) {
    nextHex = toHex(generateKeyPair().secretKey);
    await store.saveIdentity({ ...identity, nextSecretKey: nextHex });
  }
  const next = keyPairFromSecret(nextHex);
  const record = await client.lookup(handle);
  // Already moved: the relay acknowledged a rotation whose answer this page did not see.
  if (record.primary !== primaryOf(next.publicKey)) {
    if (record.primary !== primaryOf(old.publicKey)) {
      throw new Error(`${record.fqhn} is no longer held by this browser's key`);
    }
    const lines = await client.sigchain(record.primary);
    await client.rotate(
      rotationLink({
        lastLine: lines.at(-1) ?? '',
        oldSecretKey: old.secretKey,
        newSecretKey: next.secretKey,
      }),
    );
  }
  const rotated: ClaimedIdentity = {
    secretKey: nextHex,
    handle,
    fqhn,
    previousSecretKeys: [identity.secretKey, ...(identity.previousSecretKeys ?? [])],
  };
  await store.saveIdentity(rotated);
  return rotated;
}
