import { z } from 'zod';
import { isStorableText } from '../http/storable-text.js';

/** Longest proof entry (contract, "Proofs"). */
export const PROOF_MAX_LENGTH = 512;
/** Most proofs one profile may publish (spec, "Limits"). */
export const PROOFS_MAX = 64;

const PROOF = /^[^:]+:.+$/s;

/** The signed registration envelope; payload fields beyond the four are kept (they are signed). */
export const registrationSchema = z.object(
  {
    payload: z.looseObject(
      {
        server: z.string({ error: 'payload.server must be a string' }),
        handle: z.string({ error: 'payload.handle must be a string' }),
        primary: z.string({ error: 'payload.primary must be a string' }),
        ts: z.int({ error: 'payload.ts must be an integer (Unix seconds)' }),
      },
      { error: 'payload must be an object' },
    ),
    signature: z.object(
      {
        alg: z.string({ error: 'signature.alg must be a string' }),
        key: z.string({ error: 'signature.key must be a string' }),
        sig: z.string({ error: 'signature.sig must be a string' }),
      },
      { error: 'signature must be an object' },
    ),
  },
  { error: 'body must be a signed registration { payload, signature }' },
);

/** A parsed registration envelope. */
export type Registration = z.infer<typeof registrationSchema>;

/** `{ proofs: [string] }`; the count is checked before the entries (spec's order). */
export const proofsBodySchema = z.object(
  { proofs: z.array(z.unknown(), { error: 'proofs must be an array of strings' }) },
  { error: 'body must be a JSON object { proofs: [string] }' },
);

/** One proof entry: `<channel>:<identifier>`, both non-empty, at most 512 characters. */
export const proofEntrySchema = z
  .string({ error: 'each proof must be a string' })
  .max(PROOF_MAX_LENGTH, `each proof must be at most ${PROOF_MAX_LENGTH} characters`)
  .regex(PROOF, 'each proof must look like <channel>:<identifier>')
  .refine(isStorableText, 'each proof must not contain NUL characters or lone surrogates');
