import { randomBytes } from 'node:crypto';
import type { App } from '../src/app.js';
import type { Kysely } from 'kysely';
import request from 'supertest';
import {
  generateKeyPair,
  signRegistration,
  type KeyPair,
  type RegistrationEnvelope,
} from '../src/client/index.js';
import type { Database } from '../src/db/database.js';
import type { HandleRecord } from '../src/handles/handle-record.js';

let counter = 0;

/** A fresh valid handle, unique within the run. */
export function uniqueHandle(prefix = 'user'): string {
  counter += 1;
  return `${prefix}-${counter}-${randomBytes(3).toString('hex')}`;
}

/** A signed registration for a new key (or the given one), ready to POST. */
export function registration(
  server: string,
  handle: string,
  options: { keys?: KeyPair; ts?: number } = {},
): { keys: KeyPair; body: RegistrationEnvelope } {
  const keys = options.keys ?? generateKeyPair();
  const body = signRegistration({ server, handle, secretKey: keys.secretKey, ts: options.ts });
  return { keys, body };
}

/** A registered handle: its keys and the record the relay answered with. */
export interface RegisteredHandle {
  handle: string;
  keys: KeyPair;
  record: HandleRecord;
}

/** Registers a new handle through the API and returns its keys and record. */
export async function registerHandle(
  app: App,
  server: string,
  handle = uniqueHandle(),
): Promise<RegisteredHandle> {
  const { keys, body } = registration(server, handle);
  const res = await request(app).post('/v1/register').send(body).expect(201);
  return { handle, keys, record: res.body as HandleRecord };
}

/** The relay's error envelope, for reading parts of a response body. */
export interface ErrorBody {
  error: { code: string; message: string };
}

/** POSTs a registration body as given (tests send malformed ones too). */
export function postRegistration(app: App, body: unknown): request.Test {
  return request(app)
    .post('/v1/register')
    .send(body as object);
}

/** The relay's 400 body for `message`. */
export function badRequest(message: string): ErrorBody {
  return { error: { code: 'bad_request', message } };
}

/** The stored rows of one handle, read straight from the database. */
export function handleRows(db: Kysely<Database>, handle: string) {
  return db.selectFrom('handle').selectAll().where('handle', '=', handle).execute();
}
