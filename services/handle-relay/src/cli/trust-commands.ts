// The CLI's trust commands: rotate, verify, safety, monitor (CONTRACT.md, "signature
// chains, key rotation, transparency log"). Pins and the last kept tree head live in a
// JSON file (--pins, default ./handle-relay.pins.json).
import fs from 'node:fs/promises';
import { RelayClientError, type RelayClient, type TreeHead } from '../client/http-client.js';
import { readKeyFile, writeKeyFile } from '../client/key-file.js';
import { generateKeyPair, primaryOf, type KeyPair } from '../client/keys.js';
import { linkLine, rotationLink, type SigchainLink } from '../client/sigchain.js';
import {
  advanceHead,
  safetyNumber,
  verifyHandle,
  type Pin,
  type PinStore,
} from '../client/trust.js';

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
                                  link of a watched handle; exit 1 on a broken proof or a
                                  watched handle's link to a key you do not hold (--once,
                                  --interval <ms>)
`;

/**
 * The pin file: `{"pins": {fqhn: pin}, "head": kept head, "own_keys": [public keys this
 * user's key files held], "monitor_size": entries the monitor has read}`. No secrets.
 */
interface PinFile {
  pins: Record<string, Pin>;
  head?: TreeHead;
  own_keys?: string[];
  monitor_size?: number;
}

export class FilePinStore implements PinStore {
  constructor(private readonly file: string) {}

  async #read(): Promise<PinFile> {
    try {
      return JSON.parse(await fs.readFile(this.file, 'utf8')) as PinFile;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return { pins: {} };
      throw err;
    }
  }

  async update(change: (content: PinFile) => void): Promise<PinFile> {
    const content = await this.#read();
    change(content);
    await this.#write(content);
    return content;
  }

  async read(): Promise<PinFile> {
    return this.#read();
  }

  async #write(content: PinFile): Promise<void> {
    const temp = `${this.file}.${process.pid}.tmp`;
    await fs.writeFile(temp, `${JSON.stringify(content, null, 2)}\n`);
    await fs.rename(temp, this.file);
  }

  async getPin(fqhn: string) {
    return (await this.#read()).pins[fqhn];
  }
  async setPin(fqhn: string, pin: Pin) {
    const content = await this.#read();
    content.pins[fqhn] = pin;
    await this.#write(content);
  }
  async getHead() {
    return (await this.#read()).head;
  }
  async setHead(head: TreeHead) {
    const content = await this.#read();
    content.head = head;
    await this.#write(content);
  }
}

/** What a trust command gets from the CLI. */
export interface TrustContext {
  client: RelayClient;
  keyFile: string;
  pinsFile: string;
  watch: readonly string[];
  accept: boolean;
  once: boolean;
  intervalMs: number;
  signal?: AbortSignal;
  stdout: (text: string) => void;
  stderr: (text: string) => void;
}

/** Thrown for a failed check: the CLI prints the reason and exits 1. */
export class CheckFailed extends Error {}

async function readOptionalKey(file: string): Promise<KeyPair | undefined> {
  try {
    return await readKeyFile(file);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw err;
  }
}

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

/** Follows the log: every head checked against the last, every new entry read. */
async function monitor(
  ctx: TrustContext,
  store: FilePinStore,
  line: (value: unknown) => void,
): Promise<void> {
  const server = (await ctx.client.health()).server;
  const watched = new Set(
    ctx.watch.map((h) => (h.includes('@') ? h : `${h}@${server}`).toLowerCase()),
  );
  const held = new Set<string>((await store.read()).own_keys ?? []);
  for (const file of [ctx.keyFile, `${ctx.keyFile}.next`]) {
    const keys = await readOptionalKey(file);
    if (keys) held.add(primaryOf(keys.publicKey));
  }
  let from = (await store.read()).monitor_size ?? 0;
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
      const { entries } = await ctx.client.logEntries(from, head.size);
      if (entries.length === 0) throw new CheckFailed(`the log served no entries from ${from}`);
      for (const entry of entries) {
        const index = from++;
        const link = JSON.parse(entry) as SigchainLink;
        if (linkLine(link) !== entry)
          throw new CheckFailed(`entry ${index} is not a canonical link`);
        if (!watched.has(link.handle.toLowerCase())) continue;
        line({
          type: 'link',
          index,
          handle: link.handle,
          seq: link.seq,
          link_type: link.type,
          key: link.key,
        });
        if (!held.has(link.key)) {
          await store.update((c) => {
            c.monitor_size = index;
          });
          throw new CheckFailed(
            `entry ${index}: ${link.handle} moved to ${link.key}, a key you do not hold (${[...held].join(', ') || 'no key file'})`,
          );
        }
      }
    }
    await store.update((c) => {
      c.monitor_size = from;
    });
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
