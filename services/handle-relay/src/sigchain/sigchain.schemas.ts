import { z } from 'zod';

const HEX_SIG = /^[0-9a-f]{128}$/;

/** The body of `POST /v1/rotate`: a `rotate` link, exactly its members. */
export const rotateLinkSchema = z.strictObject(
  {
    seq: z.int({ error: 'seq must be an integer' }).min(2, 'seq must be at least 2'),
    prev: z
      .string({ error: 'prev must be a string' })
      .regex(/^[0-9a-f]{64}$/, 'prev must be 64 lowercase hex characters'),
    type: z.literal('rotate', { error: 'type must be "rotate"' }),
    handle: z.string({ error: 'handle must be a string (<handle>@<server>)' }),
    key: z
      .string({ error: 'key must be a string' })
      .regex(/^ed25519:[0-9a-f]{64}$/, 'key must be ed25519:<64 lowercase hex characters>'),
    ctime: z.int({ error: 'ctime must be an integer (Unix seconds)' }),
    sig: z
      .string({ error: 'sig must be a string' })
      .regex(HEX_SIG, 'sig must be 128 lowercase hex characters'),
    new_sig: z
      .string({ error: 'new_sig must be a string' })
      .regex(HEX_SIG, 'new_sig must be 128 lowercase hex characters'),
  },
  { error: 'body must be a rotate link {seq, prev, type, handle, key, ctime, sig, new_sig}' },
);
