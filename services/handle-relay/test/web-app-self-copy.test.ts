import { describeInBrowser } from '@svc/testing/browser';
import type { Page } from 'playwright-core';
import { uniqueHandle } from './handle-factories.js';
import {
  openConversation,
  registerInBrowser,
  sendInBrowser,
  secondDevice,
  startWebWorld,
  type WebWorld,
} from './web-harness.js';

const BROWSER_TIMEOUT_MS = 90_000;

describeInBrowser()('the web app’s copy of a sent message for the other devices', () => {
  let world: WebWorld;
  let alice: Page;
  const aliceHandle = uniqueHandle('alice');
  const bobHandle = uniqueHandle('bob');

  beforeAll(async () => {
    world = await startWebWorld('web_self_copy');
    alice = (await world.newPage()).page;
    const bob = (await world.newPage()).page;
    await registerInBrowser(alice, world.url, aliceHandle);
    await registerInBrowser(bob, world.url, bobHandle);
  }, BROWSER_TIMEOUT_MS);
  afterAll(async () => {
    await world?.close();
  }, BROWSER_TIMEOUT_MS);

  /** The messages stored for `recipient`, by seq. */
  const storedFor = (recipient: string) =>
    world.t.store.db
      .selectFrom('message')
      .select('seq')
      .where('recipient', '=', recipient)
      .orderBy('seq')
      .execute();

  it(
    'is posted again when its post fails, once, while the next message does not wait for it',
    async () => {
      const posts: string[] = [];
      let copiesRefused = 0;
      await alice.route('**/v1/messages', async (route) => {
        const { to } = route.request().postDataJSON() as { to: string };
        posts.push(to);
        if (to === aliceHandle && copiesRefused === 0) {
          copiesRefused += 1;
          await route.abort('connectionrefused');
        } else {
          await route.continue();
        }
      });
      await openConversation(alice, bobHandle);
      await sendInBrowser(alice, 'keep a copy of this');
      // The next message goes at once: the copy's retry waits off the send queue.
      await sendInBrowser(alice, 'and of this');
      expect((await storedFor(bobHandle)).length).toBe(2);
      // One copy of each at the relay: the second message's, and the refused one's retry.
      const deadline = Date.now() + 15_000;
      while ((await storedFor(aliceHandle)).length < 2 && Date.now() < deadline) {
        await new Promise((r) => setTimeout(r, 50));
      }
      expect((await storedFor(aliceHandle)).length).toBe(2);
      // Posted: two messages to bob, two copies and the refused copy's one retry.
      expect(posts.filter((to) => to === bobHandle)).toHaveLength(2);
      expect(posts.filter((to) => to === aliceHandle)).toHaveLength(3);
      expect(posts.slice(0, 2)).toEqual([bobHandle, aliceHandle]);
      // No further try: the copy is stored.
      await new Promise((r) => setTimeout(r, 4_500));
      expect(posts).toHaveLength(5);
      expect((await storedFor(aliceHandle)).length).toBe(2);
      await alice.unroute('**/v1/messages');
    },
    BROWSER_TIMEOUT_MS,
  );

  it(
    'shows a copy stored twice (its answer lost, then posted again) once on another device',
    async () => {
      const before = (await storedFor(aliceHandle)).length;
      let copy: string | undefined;
      await alice.route('**/v1/messages', async (route) => {
        const { to } = route.request().postDataJSON() as { to: string };
        if (to === aliceHandle) copy = route.request().postData() ?? undefined;
        await route.continue();
      });
      await sendInBrowser(alice, 'one copy, posted twice');
      const deadline = Date.now() + 15_000;
      while ((await storedFor(aliceHandle)).length < before + 1 && Date.now() < deadline) {
        await new Promise((r) => setTimeout(r, 50));
      }
      await alice.unroute('**/v1/messages');
      // As a retry does when the first post was stored but its answer was lost.
      const again = await fetch(`${world.url}/v1/messages`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: copy,
      });
      expect(again.status).toBe(201);
      expect((await storedFor(aliceHandle)).length).toBe(before + 2);

      const laptop = await secondDevice(world, alice, aliceHandle);
      await laptop.locator('.conversations a', { hasText: bobHandle }).click();
      await laptop.locator('.msg .text', { hasText: 'one copy, posted twice' }).waitFor();
      expect(
        await laptop.locator('.msg .text', { hasText: 'one copy, posted twice' }).count(),
      ).toBe(1);
      // Every sent message once (the retried copy of the first test came after the second's).
      expect((await laptop.locator('.msg .text').allTextContents()).sort()).toEqual([
        'and of this',
        'keep a copy of this',
        'one copy, posted twice',
      ]);
    },
    BROWSER_TIMEOUT_MS,
  );
});
