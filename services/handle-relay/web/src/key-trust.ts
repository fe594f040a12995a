import {
  RelayClientError,
  TrustError,
  verifyHandle,
  type Pin,
  type PinStore,
  type RelayClient,
  type TreeHead,
} from '../../src/client/index.js';
import type { KeptPin, LocalStore } from './local-store.js';
import { plainWords } from './relay-api.js';

/**
 * What this browser knows of a peer's key:
 * - `trusted`: verified (chain, inclusion in a signed head consistent with the one kept)
 *   and pinned, or accepted by the person after a warning;
 * - `changed`: the relay gives a key that is not the pinned one and no logged rotation
 *   signed by the pinned key explains it, or a key it cannot prove: sending is blocked
 *   until the person accepts it;
 * - `unknown`: the check could not be made now (the relay away, or failing).
 */
export type PeerKey =
  | {
      state: 'trusted';
      fqhn: string;
      key: string;
      pin: KeptPin;
      /** Pinned by this very check: the first time this browser saw the key. */
      firstUse: boolean;
      /** The size of the log head it was checked against (absent when accepted unverified). */
      logSize?: number;
    }
  | { state: 'changed'; fqhn: string; key: string; pinned?: string; reason: string }
  | { state: 'unknown'; reason: string };

/** Thrown by `keyForSend` when the peer's key is not one this browser trusts. */
export class KeyNotTrusted extends Error {}

/** The library's pin store over the app's IndexedDB. */
class IndexedDbPins implements PinStore {
  constructor(private readonly store: LocalStore) {}
  async getPin(fqhn: string): Promise<KeptPin | undefined> {
    return (await this.store.pins())[fqhn];
  }
  async setPin(fqhn: string, pin: Pin | KeptPin): Promise<void> {
    const pins = await this.store.pins();
    pins[fqhn] = pin;
    await this.store.savePins(pins);
  }
  getHead(): Promise<TreeHead | undefined> {
    return this.store.head();
  }
  setHead(head: TreeHead): Promise<void> {
    return this.store.saveHead(head);
  }
}

/**
 * Verifies and pins peers' keys (CONTRACT.md, "signature chains, key rotation,
 * transparency log") with the client library, and says which key a message may be sealed
 * to. Checks run one at a time: each moves the kept tree head, and two at once would each
 * take the other's newer head for a shrunken log.
 */
export class KeyTrust {
  private readonly pins: IndexedDbPins;
  private readonly states = new Map<string, PeerKey>();
  private queue: Promise<unknown> = Promise.resolve();

  constructor(
    private readonly client: RelayClient,
    store: LocalStore,
    private readonly changed: () => void,
  ) {
    this.pins = new IndexedDbPins(store);
  }

  /** What the last check in this page found for `peer`; undefined before one finished. */
  stateOf(peer: string): PeerKey | undefined {
    return this.states.get(peer.toLowerCase());
  }

  /** Checks `peer`'s key now: verifies, pins on first use, follows a logged rotation. */
  check(peer: string): Promise<PeerKey> {
    return this.serial(() => this.verify(peer));
  }

  /** Pins the key a warning showed (that one, even if the relay has moved on since). */
  async accept(peer: string): Promise<void> {
    const shown = this.stateOf(peer);
    if (shown?.state !== 'changed') return;
    await this.serial(() =>
      this.pins.setPin(shown.fqhn, { key: shown.key, at: Date.now(), accepted: true }),
    );
    await this.check(peer);
  }

  /** The person has read the note about a rotation: it is not shown again. */
  async dismissNote(peer: string): Promise<void> {
    const shown = this.stateOf(peer);
    if (shown?.state !== 'trusted' || !shown.pin.rotatedFrom) return;
    const pin = { ...shown.pin, rotatedFrom: undefined };
    await this.serial(() => this.pins.setPin(shown.fqhn, pin));
    this.states.set(peer.toLowerCase(), { ...shown, pin });
    this.changed();
  }

  /**
   * The record to seal a message to `peer` with, its key verified: the relay's current
   * key, checked again whenever it differs from the one last verified here (a rotation
   * since, or a swap). Throws KeyNotTrusted while a change waits for the person.
   */
  async keyForSend(peer: string): Promise<{ handle: string; fqhn: string; primary: string }> {
    const record = await this.client.lookup(peer);
    let known = this.stateOf(peer);
    if (known?.state !== 'trusted' || known.key !== record.primary) known = await this.check(peer);
    if (known.state === 'trusted') {
      return { handle: record.handle, fqhn: known.fqhn, primary: known.key };
    }
    if (known.state === 'changed') {
      throw new KeyNotTrusted(
        `the key of ${known.fqhn} changed and nothing explains it; accept the new key first`,
      );
    }
    // The log cannot be checked now: the key pinned before still stands.
    const pin = await this.pins.getPin(record.fqhn);
    if (pin?.key === record.primary) {
      return { handle: record.handle, fqhn: record.fqhn, primary: pin.key };
    }
    throw new KeyNotTrusted(known.reason);
  }

  /**
   * Runs `task` after the ones before, and across this origin's tabs under one Web Lock
   * where the browser has them: a tab that kept a newer head meanwhile would make another
   * tab's check see the log shrink.
   */
  private serial<T>(task: () => Promise<T>): Promise<T> {
    // Older browsers have no Web Locks: one tab at a time still holds.
    const locks = (navigator as Partial<Navigator>).locks;
    const locked = () =>
      locks ? (locks.request('handle-relay-key-trust', task) as Promise<T>) : task();
    const run = this.queue.then(locked);
    this.queue = run.catch(() => undefined);
    return run;
  }

  private async verify(peer: string): Promise<PeerKey> {
    let found: PeerKey;
    try {
      const v = await verifyHandle(this.client, this.pins, peer);
      if (v.status === 'changed') {
        found = {
          state: 'changed',
          fqhn: v.fqhn,
          key: v.key,
          pinned: v.pinned,
          reason: 'No rotation signed by the pinned key explains the change.',
        };
      } else {
        let pin = (await this.pins.getPin(v.fqhn))!;
        if (v.status === 'rotated') {
          pin = { ...pin, rotatedFrom: v.pinned };
          await this.pins.setPin(v.fqhn, pin);
        }
        const firstUse = v.status === 'first-use';
        found = { state: 'trusted', fqhn: v.fqhn, key: v.key, pin, firstUse, logSize: v.head.size };
      }
    } catch (err) {
      found = await this.unproven(peer, err);
    }
    this.states.set(peer.toLowerCase(), found);
    this.changed();
    return found;
  }

  /** After a failed check: a key the relay cannot prove, or a relay not answering. */
  private async unproven(peer: string, err: unknown): Promise<PeerKey> {
    // A proof that failed, or a chain the relay does not have (4xx): the key is unproven.
    const disproved =
      err instanceof TrustError || (err instanceof RelayClientError && err.status < 500);
    if (!disproved) return { state: 'unknown', reason: plainWords(err, 'Checking the key') };
    let record;
    try {
      record = await this.client.lookup(peer);
    } catch (lookupError) {
      return { state: 'unknown', reason: plainWords(lookupError, 'Checking the key') };
    }
    const pin = await this.pins.getPin(record.fqhn);
    if (pin?.key === record.primary && pin.accepted) {
      return { state: 'trusted', fqhn: record.fqhn, key: pin.key, pin, firstUse: false };
    }
    return {
      state: 'changed',
      fqhn: record.fqhn,
      key: record.primary,
      pinned: pin?.key,
      reason: `The relay cannot prove this key: ${err.message}.`,
    };
  }
}
