// The CLI's trust commands: rotate, verify, safety, monitor (CONTRACT.md, "signature
// chains, key rotation, transparency log"). Pins and the last kept tree head live in a
// JSON file (--pins, default ./handle-relay.pins.json).
import fs from 'node:fs/promises';
import { readKeyFile, writeKeyFile } from '../client/key-file.js';
import { generateKeyPair, primaryOf } from '../client/keys.js';
import { rotationLink } from '../client/sigchain.js';
import { safetyNumber, verifyHandle } from '../client/trust.js';
import { monitor } from './monitor-command.js';
import { FilePinStore } from './pin-file.js';
import { CheckFailed, readOptionalKey, type TrustContext } from './trust-context.js';

/** Default pin file, relative to the working directory. */
export const DEFAULT_PINS_FILE = 'handle-relay.pins.json';

/** What the trust commands add to the usage text. */
export const TRUST_USAGE = `  rotate <handle>                 move <handle> to a new key: the new key is written to
                                  <key file>.next, and replaces the key file once the
                                  relay acknowledged the rotation
  verify <handle>                 check <handle>'s chain, its inclusion in a signed tree
                                  head and that head's consistency with the last one kept;
                                  pin its key on first use; exit 1 with the reason when
                                  anything fails or the key changed unexplained (--accept)
  safety <handle>                 the safety number of your key and <handle>'s (verified)
  monitor [--watch <handle>...]   follow the log's heads, check each consistency proof,
                                  read every new entry; one JSON line per head and per
                                  link of a watched handle; exit 1 on a broken proof, or a
                                  watched handle's link that does not verify, is signed by
                                  or moves to a key you do not hold (--once, --interval <ms>)
`;

/** Runs a trust command; false when `command` is none of them. */
export async function runTrustCommand(
  command: string,
  args: readonly string[],
  ctx: TrustContext,
): Promise<boolean> {
  const line = (value: unknown) => ctx.stdout(`${JSON.stringify(value)}\n`);
  const store = new FilePinStore(ctx.pinsFile);
  const own = (...keys: string[]) =>
    store.update((c) => {
      c.own_keys = [...new Set([...(c.own_keys ?? []), ...keys])];
    });
  switch (command) {
    case 'rotate': {
      const { from, to } = await rotate(args[0] ?? '', ctx);
      // The monitor knows both keys as this user's own.
      await own(from, to);
      return true;
    }
    case 'verify': {
      const v = await verifyHandle(ctx.client, store, args[0] ?? '');
      if (v.status === 'changed' && ctx.accept) {
        await store.setPin(v.fqhn, { key: v.key, at: Date.now() });
      }
      line({
        handle: v.fqhn,
        key: v.key,
        status: v.status,
        pinned: v.pinned,
        links: v.chain.links.length,
        log_size: v.head.size,
      });
      if (v.status === 'changed' && !ctx.accept) {
        throw new CheckFailed(
          `the key of ${v.fqhn} changed from the pinned ${v.pinned} to ${v.key}, and no logged rotation signed by the pinned key explains it (verify --accept to pin the new key)`,
        );
      }
      return true;
    }
    case 'safety': {
      const own = await readKeyFile(ctx.keyFile);
      const v = await verifyHandle(ctx.client, store, args[0] ?? '');
      if (v.status === 'changed') {
        throw new CheckFailed(`the key of ${v.fqhn} changed unexplained: run verify first`);
      }
      ctx.stdout(`${safetyNumber(own.publicKey, v.key)}\n`);
      return true;
    }
    case 'monitor':
      await monitor(ctx, store, line);
      return true;
    default:
      return false;
  }
}

/**
 * Rotates `handle` to a new key. The new key goes to `<key file>.next` first (a run that
 * stopped half-way takes it up again); the old key file stays until the relay answers 200,
 * then the new key takes its place.
 */
async function rotate(handle: string, ctx: TrustContext): Promise<{ from: string; to: string }> {
  const nextFile = `${ctx.keyFile}.next`;
  const old = await readKeyFile(ctx.keyFile);
  let next = await readOptionalKey(nextFile);
  if (!next) {
    next = generateKeyPair();
    await writeKeyFile(nextFile, next);
  }
  const record = await ctx.client.lookup(handle);
  if (record.primary === primaryOf(next.publicKey)) {
    ctx.stderr(`handle-relay: ${record.fqhn} already rotated to ${record.primary}\n`);
  } else {
    if (record.primary !== primaryOf(old.publicKey)) {
      throw new CheckFailed(`${record.fqhn} is not held by the key in ${ctx.keyFile}`);
    }
    const lines = await ctx.client.sigchain(record.primary);
    const link = rotationLink({
      lastLine: lines.at(-1) ?? '',
      oldSecretKey: old.secretKey,
      newSecretKey: next.secretKey,
    });
    ctx.stdout(`${JSON.stringify(await ctx.client.rotate(link), null, 2)}\n`);
  }
  await fs.rename(nextFile, ctx.keyFile);
  ctx.stderr(`handle-relay: ${ctx.keyFile} now holds ${primaryOf(next.publicKey)}\n`);
  return { from: primaryOf(old.publicKey), to: primaryOf(next.publicKey) };
}
