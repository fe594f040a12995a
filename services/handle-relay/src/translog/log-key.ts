import fs from 'node:fs';
import path from 'node:path';
import nacl from 'tweetnacl';
import { fromHex, toHex } from '../client/hex.js';

/** The log's signing key: `ed25519:<hex>` and tweetnacl's 64-byte secret key. */
export interface LogKey {
  key: string;
  secretKey: Uint8Array;
}

function parse(file: string, text: string): LogKey {
  const value = JSON.parse(text) as { key?: unknown; seed?: unknown };
  if (typeof value.seed !== 'string' || !/^[0-9a-f]{64}$/.test(value.seed)) {
    throw new Error(`${file} does not hold a log key ({key, seed})`);
  }
  const pair = nacl.sign.keyPair.fromSeed(fromHex(value.seed));
  const key = `ed25519:${toHex(pair.publicKey)}`;
  if (value.key !== key) throw new Error(`${file}: key does not match its seed`);
  return { key, secretKey: pair.secretKey };
}

/**
 * Reads the log key at `file`, or creates it when absent (parent folders included) with
 * mode 0600, written aside and linked into place like the VAPID key, so two processes
 * starting together agree on one key. `created` says whether this call made it.
 */
export function loadOrCreateLogKey(file: string): LogKey & { created: boolean } {
  let created = false;
  if (!fs.existsSync(file)) {
    fs.mkdirSync(path.dirname(file), { recursive: true });
    const seed = nacl.randomBytes(32);
    const key = `ed25519:${toHex(nacl.sign.keyPair.fromSeed(seed).publicKey)}`;
    const temp = `${file}.${process.pid}.${Date.now()}.tmp`;
    fs.writeFileSync(temp, `${JSON.stringify({ key, seed: toHex(seed) }, null, 2)}\n`, {
      mode: 0o600,
      flag: 'wx',
    });
    try {
      fs.linkSync(temp, file);
      created = true;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    } finally {
      fs.rmSync(temp, { force: true });
    }
  }
  return { ...parse(file, fs.readFileSync(file, 'utf8')), created };
}
