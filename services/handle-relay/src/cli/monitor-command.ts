import { LOG_ENTRIES_MAX, RelayClientError, type TreeHead } from '../client/http-client.js';
import { primaryOf } from '../client/keys.js';
import { lineHash } from '../client/merkle.js';
import {
  eldestSignatureValid,
  linkLine,
  rotationSignatureProblem,
  verifyChain,
  type SigchainLink,
} from '../client/sigchain.js';
import { advanceHead } from '../client/trust.js';
import type { ChainTip, FilePinStore } from './pin-file.js';
import { CheckFailed, readOptionalKey, type TrustContext } from './trust-context.js';

// `monitor`: follows the log as Certificate Transparency monitors do, and checks every link
// of the watched handles.

/**
 * The tip of `fqhn`'s chain just before link `seq`, when the monitor has not seen the
 * earlier links in the log (it started later, or the handle was added to --watch later):
 * from the chain the relay serves, verified.
 */
async function tipBefore(ctx: TrustContext, link: SigchainLink): Promise<ChainTip | undefined> {
  if (link.seq <= 1) return undefined;
  let lines: string[];
  try {
    lines = await ctx.client.sigchain(link.key);
  } catch (err) {
    if (err instanceof RelayClientError && err.status === 404) return undefined;
    throw err;
  }
  const before = lines.slice(0, link.seq - 1);
  if (before.length !== link.seq - 1) return undefined;
  const chain = verifyChain(before);
  return { seq: link.seq - 1, hash: lineHash(before.at(-1)!), key: chain.key };
}

/**
 * Checks one logged link of a watched handle against the chain's tip before it: it follows
 * the tip (`seq`, `prev`), its signatures verify (an eldest one by its key; a rotation's
 * `sig` by the key in force and `new_sig` by the new key), and every key that signed it
 * and the key it moves to are held by this user. Returns the new tip, or the reason.
 */
function checkWatchedLink(
  link: SigchainLink,
  line: string,
  tip: ChainTip | undefined,
  held: ReadonlySet<string>,
): ChainTip | string {
  const name = `${link.handle}'s link ${link.seq} (${link.type})`;
  const signers: string[] = [];
  if (link.type === 'eldest') {
    if (link.seq !== 1 || link.prev !== null || tip) return `${name} is a second eldest link`;
    if (!eldestSignatureValid(link)) return `${name}: the eldest signature did not verify`;
    signers.push(link.key);
  } else {
    if (!tip) return `${name} follows no link of the chain`;
    if (link.seq !== tip.seq + 1 || link.prev !== tip.hash) {
      return `${name} does not follow link ${tip.seq} of the chain`;
    }
    const problem = rotationSignatureProblem(link, tip.key);
    if (problem) return `${name}: ${problem}`;
    signers.push(tip.key, link.key);
  }
  const foreign = [...new Set([...signers, link.key])].filter((k) => !held.has(k));
  if (foreign.length > 0) {
    return `${name} is signed by or moves to ${foreign.join(', ')}, a key you do not hold (${[...held].join(', ') || 'no key file'})`;
  }
  return { seq: link.seq, hash: lineHash(line), key: link.key };
}

/** Follows the log: every head checked against the last, every new entry read. */
export async function monitor(
  ctx: TrustContext,
  store: FilePinStore,
  line: (value: unknown) => void,
): Promise<void> {
  const server = (await ctx.client.health()).server;
  const watched = new Set(
    ctx.watch.map((h) => (h.includes('@') ? h : `${h}@${server}`).toLowerCase()),
  );
  const kept = await store.read();
  const held = new Set<string>(kept.own_keys ?? []);
  for (const file of [ctx.keyFile, `${ctx.keyFile}.next`]) {
    const keys = await readOptionalKey(file);
    if (keys) held.add(primaryOf(keys.publicKey));
  }
  const tips = new Map(Object.entries(kept.watched ?? {}));
  const save = (size: number) =>
    store.update((c) => {
      c.monitor_size = size;
      c.watched = Object.fromEntries(tips);
    });
  let from = kept.monitor_size ?? 0;
  for (;;) {
    let head: TreeHead;
    try {
      head = await advanceHead(ctx.client, store);
    } catch (err) {
      if (err instanceof RelayClientError) throw err;
      throw new CheckFailed((err as Error).message);
    }
    line({
      type: 'head',
      size: head.size,
      root: head.root,
      timestamp: head.timestamp,
      key: head.key,
    });
    while (from < head.size) {
      const { entries } = await ctx.client.logEntries(
        from,
        Math.min(head.size, from + LOG_ENTRIES_MAX),
      );
      if (entries.length === 0) throw new CheckFailed(`the log served no entries from ${from}`);
      for (const entry of entries) {
        const index = from++;
        const link = JSON.parse(entry) as SigchainLink;
        if (linkLine(link) !== entry)
          throw new CheckFailed(`entry ${index} is not a canonical link`);
        const fqhn = link.handle.toLowerCase();
        if (!watched.has(fqhn)) continue;
        line({
          type: 'link',
          index,
          handle: link.handle,
          seq: link.seq,
          link_type: link.type,
          key: link.key,
        });
        let tip = tips.get(fqhn);
        if (!tip && link.type !== 'eldest') {
          try {
            tip = await tipBefore(ctx, link);
          } catch (err) {
            if (err instanceof RelayClientError) throw err;
            throw new CheckFailed(
              `entry ${index}: ${link.handle}'s chain: ${(err as Error).message}`,
            );
          }
        }
        const checked = checkWatchedLink(link, entry, tip, held);
        if (typeof checked === 'string') {
          await save(index);
          throw new CheckFailed(`entry ${index}: ${checked}`);
        }
        tips.set(fqhn, checked);
      }
    }
    await save(from);
    if (ctx.once || ctx.signal?.aborted) return;
    await new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, ctx.intervalMs);
      ctx.signal?.addEventListener('abort', () => {
        clearTimeout(timer);
        resolve();
      });
    });
    if (ctx.signal?.aborted) return;
  }
}
