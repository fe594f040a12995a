import { describeInBrowser } from '@svc/testing/browser';
import jsqr from 'jsqr';
import path from 'node:path';
import type { BrowserContext, Page } from 'playwright-core';
import { readKeyFile } from '../src/client/key-file.js';
import {
  generateKeyPair,
  headSignatureValid,
  keyPairFromSecret,
  openMessage,
  primaryOf,
  type TreeHead,
} from '../src/client/index.js';
import { runCliCollecting } from './cli-runner.js';
import { uniqueHandle } from './handle-factories.js';
import {
  openConversation,
  registerInBrowser,
  screenshot,
  sendInBrowser,
  startWebWorld,
  waitForLive,
  type WebWorld,
} from './web-harness.js';

const BROWSER_TIMEOUT_MS = 90_000;

/** What the app keeps in IndexedDB about keys: its identity, the pins, the last head. */
interface Kept {
  me: {
    secretKey: string;
    handle: string;
    fqhn: string;
    nextSecretKey?: string;
    previousSecretKeys?: string[];
  };
  pins: Record<string, { key: string; at: number; accepted?: boolean; rotatedFrom?: string }>;
  head: TreeHead;
}

/** Reads the app's IndexedDB records of keys from the page. */
function kept(page: Page): Promise<Kept> {
  return page.evaluate<Kept>(`(async () => {
    const db = await new Promise((resolve, reject) => {
      const open = indexedDB.open('handle-relay');
      open.onsuccess = () => resolve(open.result);
      open.onerror = () => reject(open.error);
    });
    const get = (key) => new Promise((resolve, reject) => {
      const request = db.transaction('identity').objectStore('identity').get(key);
      request.onsuccess = () => resolve(request.result);
      request.onerror = () => reject(request.error);
    });
    const found = { me: await get('me'), pins: await get('pins'), head: await get('head') };
    db.close();
    return found;
  })()`);
}

describeInBrowser()('the web app verifies and pins keys, against the CLI', () => {
  let world: WebWorld;
  let alice: { context: BrowserContext; page: Page };
  const aliceHandle = uniqueHandle('alice');
  const bob = uniqueHandle('bob');
  const carol = uniqueHandle('carol');
  const keyOf = async (who: string) =>
    primaryOf((await readKeyFile(path.join(world.t.dataDir, `${who}.key.json`))).publicKey);

  /** The CLI as `who` (bob or carol): their key file and pin file. */
  function as(who: string, ...args: string[]) {
    return runCliCollecting([
      ...args,
      '--url',
      world.url,
      '--key',
      path.join(world.t.dataDir, `${who}.key.json`),
      '--pins',
      path.join(world.t.dataDir, `${who}.pins.json`),
    ]);
  }
  const head = async () => (await (await fetch(`${world.url}/v1/log/head`)).json()) as TreeHead;
  const noticeText = (page: Page) => page.locator('.key-notice').textContent();
  const composerState = async (page: Page) => ({
    text: await page.locator('#compose').isDisabled(),
    send: await page.locator('.composer button[type="submit"]').isDisabled(),
  });
  const inboxRows = (handle: string) =>
    world.t.store.db
      .selectFrom('message')
      .select(['seq', 'envelope'])
      .where('recipient', '=', handle)
      .orderBy('seq')
      .execute();

  beforeAll(async () => {
    world = await startWebWorld('web_trust');
    for (const [who, handle] of [
      ['bob', bob],
      ['carol', carol],
    ]) {
      expect((await as(who!, 'keygen')).code).toBe(0);
      expect((await as(who!, 'register', handle!)).code).toBe(0);
    }
    alice = await world.newPage();
    await registerInBrowser(alice.page, world.url, aliceHandle);
  }, BROWSER_TIMEOUT_MS);
  afterAll(async () => {
    await world?.close();
  }, BROWSER_TIMEOUT_MS);

  it(
    'opening a conversation verifies the peer’s key and pins it on first use',
    async () => {
      const { page } = alice;
      await openConversation(page, bob);
      await page.locator('.key-note').waitFor();
      expect(await noticeText(page)).toBe(
        `First conversation with ${bob}: their key is now pinned in this browser. Compare the safety number`,
      );
      expect(await page.getByRole('alert').count()).toBe(0);
      expect(await composerState(page)).toEqual({ text: false, send: false });
      const { pins, head: keptHead } = await kept(page);
      expect(pins).toEqual({
        [`${bob}@relay.test`]: { key: await keyOf('bob'), at: expect.any(Number) as unknown },
      });
      // The head the chain was checked in: signed, kept for the next consistency check. The
      // relay re-signs the same tree with a fresh timestamp after a second, so the kept copy
      // is compared by tree and key, and its own signature is checked.
      const { size, root, key } = await head();
      expect(keptHead).toEqual({
        size,
        root,
        key,
        timestamp: expect.any(Number) as unknown,
        sig: expect.stringMatching(/^[0-9a-f]{128}$/) as unknown,
      });
      expect(headSignatureValid(keptHead)).toBe(true);

      await sendInBrowser(page, 'Hello Bob, from a pinned key');
      const inbox = await as('bob', 'inbox', bob);
      expect(inbox.code).toBe(0);
      expect(JSON.parse(inbox.out)).toMatchObject({
        from_handle: aliceHandle,
        text: 'Hello Bob, from a pinned key',
      });
    },
    BROWSER_TIMEOUT_MS,
  );

  it(
    'after the peer rotates with the CLI, the app explains it (no warning) and seals to the new key',
    async () => {
      const { page } = alice;
      const oldKey = await keyOf('bob');
      const rotated = await as('bob', 'rotate', bob);
      expect(rotated.code).toBe(0);
      const newKey = await keyOf('bob');
      expect(newKey).not.toBe(oldKey);

      // The page has bob's old key verified: the send finds the relay's key moved, checks
      // again, and follows the logged rotation.
      await sendInBrowser(page, 'Hello Bob, after your rotation');
      await page.locator('.key-note', { hasText: 'moved to a new key' }).waitFor();
      expect(await noticeText(page)).toBe(
        `${bob} moved to a new key. The relay's log holds the rotation, signed by the key you had pinned, so nothing else is needed. OK`,
      );
      expect(await page.getByRole('alert').count()).toBe(0);
      expect(await composerState(page)).toEqual({ text: false, send: false });
      expect((await kept(page)).pins[`${bob}@relay.test`]).toEqual({
        key: newKey,
        at: expect.any(Number) as unknown,
        rotatedFrom: oldKey,
      });
      // Bob's CLI, holding only the new key now, opens it.
      const inbox = await as('bob', 'inbox', bob);
      expect(inbox.code).toBe(0);
      const lines = inbox.out
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l) as Record<string, unknown>);
      expect(lines.at(-1)).toMatchObject({
        from_handle: aliceHandle,
        text: 'Hello Bob, after your rotation',
      });
      // Seen: the note goes, and stays gone.
      await page.getByRole('button', { name: 'OK' }).click();
      await page.locator('.key-note').waitFor({ state: 'detached' });
      expect((await kept(page)).pins[`${bob}@relay.test`]?.rotatedFrom).toBeUndefined();
    },
    BROWSER_TIMEOUT_MS,
  );

  it(
    'the Verify view shows the safety number the CLI’s safety prints, and a QR code of it',
    async () => {
      const { page } = alice;
      await page.getByRole('link', { name: 'Verify' }).click();
      await page.locator('#safety-number').waitFor();
      const cli = await as('bob', 'safety', aliceHandle);
      expect(cli.code).toBe(0);
      const number = cli.out.trim();
      expect(number).toMatch(/^(\d{5} ){11}\d{5}$/);
      expect(await page.locator('#safety-number').textContent()).toBe(number);
      expect(await page.locator('#verify-title').textContent()).toBe(`Verify ${bob}@relay.test`);
      expect(await page.locator('#peer-key').textContent()).toBe(await keyOf('bob'));
      // The QR code, drawn into a canvas in the page and read back by an independent decoder.
      const image = await page.evaluate<{ size: number; rgba: string }>(`(async () => {
        const svg = document.querySelector('svg.qr');
        const img = new Image();
        img.src = 'data:image/svg+xml;base64,' + btoa(new XMLSerializer().serializeToString(svg));
        await img.decode();
        const size = svg.viewBox.baseVal.width * 4;
        const canvas = document.createElement('canvas');
        canvas.width = canvas.height = size;
        const ctx = canvas.getContext('2d');
        ctx.imageSmoothingEnabled = false;
        ctx.drawImage(img, 0, 0, size, size);
        // As base64: a plain array of every byte is slow to hand over.
        const bytes = ctx.getImageData(0, 0, size, size).data;
        let binary = '';
        for (let i = 0; i < bytes.length; i += 8192) {
          binary += String.fromCharCode(...bytes.subarray(i, i + 8192));
        }
        return { size, rgba: btoa(binary) };
      })()`);
      // CommonJS typed as an ES module: the function is its `default`.
      const decoded = jsqr.default(
        new Uint8ClampedArray(Buffer.from(image.rgba, 'base64')),
        image.size,
        image.size,
      );
      expect(decoded?.data).toBe(number);
      expect(await page.getByRole('img', { name: 'QR code of the safety number' }).count()).toBe(1);
      await screenshot(page, 'verify-safety-number');
    },
    BROWSER_TIMEOUT_MS,
  );

  it(
    'a key swapped in the database shows the key-change warning and blocks sending until accepted',
    async () => {
      const { page } = alice;
      await page.goto(`${world.url}/#/`);
      await openConversation(page, carol);
      await page.locator('.key-note').waitFor();
      await sendInBrowser(page, 'Hello Carol');
      const carolKey = await keyOf('carol');
      expect((await inboxRows(carol)).length).toBe(1);

      // The operator gives carol another key, with no link in her chain or the log.
      const intruder = generateKeyPair();
      const intruderKey = primaryOf(intruder.publicKey);
      await world.t.store.db
        .updateTable('handle')
        .set({ primary_key: intruderKey })
        .where('handle', '=', carol)
        .execute();

      // A reload: the pin comes from IndexedDB.
      await page.reload();
      await waitForLive(page);
      const banner = page.getByRole('alert');
      await banner.waitFor();
      expect(await banner.textContent()).toBe(
        `The key of ${carol} changed` +
          `You pinned ${carolKey} for ${carol}@relay.test; the relay now gives ${intruderKey}. ` +
          `The relay cannot prove this key: the chain of ${carol}@relay.test did not verify: no signature chain holds this key.` +
          `Someone may be trying to read your messages, or ${carol} started over with a new key. Sending is paused until you accept the key: compare the safety number with ${carol} first, in person or on a call.` +
          'Accept the new keyCompare the safety number',
      );
      expect(await composerState(page)).toEqual({ text: true, send: true });
      expect((await kept(page)).pins[`${carol}@relay.test`]).toEqual({
        key: carolKey,
        at: expect.any(Number) as unknown,
      });
      await screenshot(page, 'key-change-warning');
      // Nothing reached the relay for carol meanwhile.
      expect((await inboxRows(carol)).length).toBe(1);

      await page.getByRole('button', { name: 'Accept the new key' }).click();
      await banner.waitFor({ state: 'detached' });
      expect(await composerState(page)).toEqual({ text: false, send: false });
      expect((await kept(page)).pins[`${carol}@relay.test`]).toEqual({
        key: intruderKey,
        at: expect.any(Number) as unknown,
        accepted: true,
      });
      await sendInBrowser(page, 'Carol, to the key I accepted');
      const rows = await inboxRows(carol);
      expect(rows.length).toBe(2);
      // Sealed to the accepted key: it opens with that key.
      const opened = openMessage(
        JSON.parse(rows[1]!.envelope) as unknown,
        intruder,
        `${carol}@relay.test`,
      );
      expect(opened).toMatchObject({ type: 'text', text: 'Carol, to the key I accepted' });
    },
    BROWSER_TIMEOUT_MS,
  );

  it(
    'a handle with no signature chain (registered before chains) is not pinned blindly: a warning until accepted',
    async () => {
      const { page } = alice;
      const legacy = uniqueHandle('legacy');
      const keys = generateKeyPair();
      const key = primaryOf(keys.publicKey);
      // As a registration from before signature chains left it: a handle row, no link.
      await world.t.store.db
        .insertInto('handle')
        .values({ handle: legacy, primary_key: key, registered_at: new Date(), proofs: [] })
        .execute();
      await page.goto(`${world.url}/#/`);
      await page.getByLabel('Write to').fill(legacy);
      await page.getByRole('button', { name: 'Open' }).click();
      const banner = page.getByRole('alert');
      await banner.waitFor();
      expect(await banner.textContent()).toBe(
        `The key of ${legacy} could not be verified` +
          `The relay gives ${key} for ${legacy}@relay.test. ` +
          `The relay cannot prove this key: the chain of ${legacy}@relay.test did not verify: no signature chain holds this key.` +
          `Someone may be trying to read your messages, or the relay has no proof for this key (a handle registered before signature chains existed has none). Sending is paused until you accept the key: compare the safety number with ${legacy} first, in person or on a call.` +
          'Accept this keyCompare the safety number',
      );
      expect(await composerState(page)).toEqual({ text: true, send: true });
      expect((await kept(page)).pins[`${legacy}@relay.test`]).toBeUndefined();

      await page.getByRole('button', { name: 'Accept this key' }).click();
      await banner.waitFor({ state: 'detached' });
      expect(await composerState(page)).toEqual({ text: false, send: false });
      expect((await kept(page)).pins[`${legacy}@relay.test`]).toEqual({
        key,
        at: expect.any(Number) as unknown,
        accepted: true,
      });
      await sendInBrowser(page, 'Hello, old-timer');
      const rows = await inboxRows(legacy);
      expect(rows.length).toBe(1);
      expect(
        openMessage(JSON.parse(rows[0]!.envelope) as unknown, keys, `${legacy}@relay.test`),
      ).toMatchObject({ type: 'text', text: 'Hello, old-timer' });
    },
    BROWSER_TIMEOUT_MS,
  );

  it(
    'rotating in Profile keeps the old key until the relay acknowledged it; the CLI sees the new key verified',
    async () => {
      const { page } = alice;
      const before = await kept(page);
      const oldKey = primaryOf(keyPairFromSecret(before.me.secretKey).publicKey);
      const chainOf = async (key: string) =>
        (await (await fetch(`${world.url}/v1/sigchains/ed25519/${key.slice(8)}`)).text())
          .trim()
          .split('\n')
          .map((l) => JSON.parse(l) as { type: string; key: string });
      const handleRow = () =>
        world.t.store.db
          .selectFrom('handle')
          .select('primary_key')
          .where('handle', '=', aliceHandle)
          .executeTakeFirstOrThrow();
      await page.getByRole('link', { name: 'Profile' }).click();
      const chainLink = page.locator('#sigchain-link');
      await chainLink.waitFor();
      // The relay's own chain, not the configured sig_server_url (a server that may not exist).
      expect(await chainLink.getAttribute('href')).toBe(
        `${world.url}/v1/sigchains/ed25519/${oldKey.slice(8)}`,
      );
      expect(await chainOf(oldKey)).toEqual([
        expect.objectContaining({ type: 'eldest', key: oldKey }),
      ]);
      page.on('dialog', (dialog) => void dialog.accept());

      // The relay cannot be reached: nothing changes but the new key kept for the next try.
      await page.route('**/v1/rotate', (route) => route.abort());
      await page.getByRole('button', { name: 'Rotate key' }).click();
      await page.locator('#status', { hasText: 'Rotating your key' }).waitFor();
      expect(await page.locator('#status').textContent()).toBe(
        'Rotating your key: the relay cannot be reached. Check the connection; the app keeps trying.',
      );
      const pending = await kept(page);
      expect(pending.me).toEqual({
        ...before.me,
        nextSecretKey: expect.stringMatching(/^[0-9a-f]{128}$/) as unknown,
      });
      expect(await handleRow()).toEqual({ primary_key: oldKey });
      const newKey = primaryOf(keyPairFromSecret(pending.me.nextSecretKey!).publicKey);

      await page.unroute('**/v1/rotate');
      await page.getByRole('button', { name: 'Rotate key' }).click();
      // The app starts again with the new key and says so.
      await page.locator('#rotated').waitFor();
      expect(await page.locator('#rotated').textContent()).toBe(
        `Your handle now uses a new key, ${newKey}. Export the new key file: files exported before no longer work.`,
      );
      expect((await kept(page)).me).toEqual({
        secretKey: pending.me.nextSecretKey,
        handle: aliceHandle,
        fqhn: `${aliceHandle}@relay.test`,
        previousSecretKeys: [before.me.secretKey],
      });
      expect(await handleRow()).toEqual({ primary_key: newKey });
      await screenshot(page, 'profile-rotated');
      expect(await chainOf(newKey)).toEqual([
        expect.objectContaining({ type: 'eldest', key: oldKey }),
        expect.objectContaining({ type: 'rotate', key: newKey }),
      ]);
      expect(await chainLink.getAttribute('href')).toBe(
        `${world.url}/v1/sigchains/ed25519/${newKey.slice(8)}`,
      );

      // Bob's CLI pinned alice's old key (its safety check): the rotation explains the new one.
      const verified = await as('bob', 'verify', aliceHandle);
      expect(verified.code).toBe(0);
      expect(JSON.parse(verified.out)).toMatchObject({
        handle: `${aliceHandle}@relay.test`,
        key: newKey,
        status: 'rotated',
        pinned: oldKey,
        links: 2,
      });
      // And what it sends now reaches the app, which reads its inbox with the new key.
      await waitForLive(page);
      expect((await as('bob', 'send', aliceHandle, 'Alice, to your new key')).code).toBe(0);
      await page.getByRole('link', { name: 'Chats' }).click();
      await page.locator('.conversations a', { hasText: bob }).click();
      await page.locator('.msg .text', { hasText: 'Alice, to your new key' }).waitFor();
      expect(world.outside).toEqual([]);
    },
    BROWSER_TIMEOUT_MS,
  );
});
