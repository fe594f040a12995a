import fs from 'node:fs';
import path from 'node:path';
import webpush from 'web-push';

/** The server's VAPID key pair, base64url without padding (web-push's format). */
export interface VapidKeys {
  publicKey: string;
  privateKey: string;
}

function isVapidKeys(value: unknown): value is VapidKeys {
  const v = value as Partial<VapidKeys> | null;
  return (
    !!v &&
    typeof v === 'object' &&
    typeof v.publicKey === 'string' &&
    typeof v.privateKey === 'string' &&
    Buffer.from(v.publicKey, 'base64url').length === 65 &&
    Buffer.from(v.privateKey, 'base64url').length === 32
  );
}

/**
 * Reads the key pair at `file`, or creates it on first run (parent folders included) with
 * mode 0600. The new file is written aside and linked into place, so two processes
 * starting together agree on one key pair and a crash never leaves half a file.
 */
export function loadOrCreateVapidKeys(file: string): VapidKeys {
  if (!fs.existsSync(file)) {
    fs.mkdirSync(path.dirname(file), { recursive: true });
    const keys = webpush.generateVAPIDKeys();
    const temp = `${file}.${process.pid}.${Date.now()}.tmp`;
    fs.writeFileSync(temp, `${JSON.stringify(keys, null, 2)}\n`, { mode: 0o600, flag: 'wx' });
    try {
      fs.linkSync(temp, file);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    } finally {
      fs.rmSync(temp, { force: true });
    }
  }
  const parsed: unknown = JSON.parse(fs.readFileSync(file, 'utf8'));
  if (!isVapidKeys(parsed)) {
    throw new Error(`${file} does not hold a VAPID key pair ({publicKey, privateKey})`);
  }
  return { publicKey: parsed.publicKey, privateKey: parsed.privateKey };
}
