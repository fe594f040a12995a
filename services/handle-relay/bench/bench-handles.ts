// Handles for the benches that measure delivery (bench:peer, bench:scale): registered straight
// in the store, and their live streams, which hand each message's envelope text to a callback.
import { generateKeyPairSync } from 'node:crypto';
import http from 'node:http';
import { openDatabase } from '@svc/database';
import { sql } from 'kysely';
import { authLines, signedAuthValue } from '../src/client/index.js';
import { SCHEMA, type Database } from '../src/db/database.js';

/** A registered handle and its Ed25519 secret key (seed and public key, as tweetnacl has it). */
export interface BenchHandle {
  handle: string;
  secretKey: Uint8Array;
}

/** Registers `count` handles named `<prefix>-<i>` in the store at `dbUrl`. */
export async function registerHandles(
  dbUrl: string,
  prefix: string,
  count: number,
): Promise<BenchHandle[]> {
  const keys = Array.from({ length: count }, (_, i) => {
    const { privateKey, publicKey } = generateKeyPairSync('ed25519');
    const raw = publicKey.export({ format: 'der', type: 'spki' }).subarray(12);
    const seed = privateKey.export({ format: 'der', type: 'pkcs8' }).subarray(16);
    return { handle: `${prefix}-${i}`, raw, secretKey: new Uint8Array(Buffer.concat([seed, raw])) };
  });
  const store = await openDatabase<Database>({ kind: 'postgres', url: dbUrl }, SCHEMA);
  try {
    await store.db
      .insertInto('handle')
      .values(
        keys.map((k) => ({
          handle: k.handle,
          primary_key: `ed25519:${k.raw.toString('hex')}`,
          registered_at: new Date(),
          proofs: [],
        })),
      )
      .execute();
  } finally {
    await store.close();
  }
  return keys.map(({ handle, secretKey }) => ({ handle, secretKey }));
}

/**
 * Opens one live stream per handle, the `i`th on `baseUrlOf(i)`; every message's envelope
 * (its JSON text) goes to `onEnvelope` as it arrives. Answers how to close them.
 */
export async function openStreams(
  handles: BenchHandle[],
  baseUrlOf: (i: number) => string,
  onEnvelope: (json: string) => void,
): Promise<() => void> {
  const requests: http.ClientRequest[] = [];
  for (const [i, h] of handles.entries()) {
    const auth = signedAuthValue(h.secretKey, authLines.stream(h.handle));
    await new Promise<void>((resolve, reject) => {
      const req = http.get(
        `${baseUrlOf(i)}/v1/inbox/${h.handle}/stream?auth=${encodeURIComponent(auth)}`,
        { agent: false },
        (res) => {
          if (res.statusCode !== 200) reject(new Error(`stream answered ${res.statusCode}`));
          res.setEncoding('utf8');
          let buffer = '';
          res.on('data', (chunk: string) => {
            buffer += chunk;
            let end: number;
            while ((end = buffer.indexOf('\n\n')) >= 0) {
              const block = buffer.slice(0, end);
              buffer = buffer.slice(end + 2);
              const data = /^data: (.*)$/m.exec(block)?.[1];
              if (block.includes('event: message') && data) {
                onEnvelope(JSON.stringify((JSON.parse(data) as { envelope: unknown }).envelope));
              }
            }
          });
          resolve();
        },
      );
      req.on('error', reject);
      requests.push(req);
    });
  }
  return () => requests.forEach((r) => r.destroy());
}

/**
 * The server processes (backends) serving the database at `dbUrl` now: what the bench's
 * PostgreSQL figures count, as other work on a shared machine uses the same server.
 */
export async function databaseBackends(dbUrl: string): Promise<number[]> {
  const store = await openDatabase<Database>({ kind: 'postgres', url: dbUrl }, SCHEMA);
  try {
    const { rows } = await sql<{ pid: number }>`
      select pid from pg_stat_activity
      where datname = current_database() and pid <> pg_backend_pid()
    `.execute(store.db);
    return rows.map((r) => r.pid);
  } finally {
    await store.close();
  }
}
