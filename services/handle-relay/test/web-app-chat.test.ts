import { describeInBrowser } from '@svc/testing/browser';
import type { Page } from 'playwright-core';
import { uniqueHandle } from './handle-factories.js';
import {
  openConversation,
  registerInBrowser,
  screenshot,
  secondDevice,
  sendInBrowser,
  startWebWorld,
  threadOf,
  waitForLive,
  type WebWorld,
} from './web-harness.js';

const BROWSER_TIMEOUT_MS = 90_000;

/** The conversation list as shown: [peer, unread badge or '', preview]. */
async function conversationsOf(page: Page): Promise<[string, string, string][]> {
  const rows: [string, string, string][] = [];
  for (const link of await page.locator('.conversations a').all()) {
    const badge = link.locator('.count');
    rows.push([
      (await link.locator('.peer').textContent()) ?? '',
      (await badge.count()) ? ((await badge.textContent()) ?? '') : '',
      (await link.locator('.preview').textContent()) ?? '',
    ]);
  }
  return rows;
}

describeInBrowser()('the web app’s composer, delivery states, conversations and devices', () => {
  let world: WebWorld;
  let alice: Page;
  let bob: Page;
  const aliceHandle = uniqueHandle('alice');
  const bobHandle = uniqueHandle('bob');
  const carolHandle = uniqueHandle('carol');

  beforeAll(async () => {
    world = await startWebWorld('web_chat');
    alice = (await world.newPage()).page;
    bob = (await world.newPage()).page;
    await registerInBrowser(alice, world.url, aliceHandle);
    await registerInBrowser(bob, world.url, bobHandle);
  }, BROWSER_TIMEOUT_MS);
  afterAll(async () => {
    await world?.close();
  }, BROWSER_TIMEOUT_MS);

  it(
    '20 messages typed at 20 ms a key, each sent with Enter at once, all arrive intact and in order',
    async () => {
      await openConversation(alice, bobHandle);
      await bob.locator('.new-conversation').waitFor();
      const texts = Array.from(
        { length: 20 },
        (_, i) => `message ${String(i + 1).padStart(2, '0')} of twenty`,
      );
      const box = alice.locator('#compose');
      for (const text of texts) {
        // Typed on while the sends before are still in flight: nothing waits for them.
        await box.pressSequentially(text, { delay: 20 });
        await box.press('Enter');
      }
      expect(await box.inputValue()).toBe('');
      await alice.locator('.msg[data-state="stored"]').nth(19).waitFor();
      const shown = await threadOf(alice);
      expect(shown.map(([who, text]) => [who, text])).toEqual(texts.map((t) => ['You', t]));
      const seqs = shown.map(([, , seq]) => seq);
      expect([...seqs].sort((a, b) => a - b)).toEqual(seqs);
      // At the relay: twenty envelopes for bob in the order typed, and twenty copies.
      const stored = await world.t.store.db
        .selectFrom('message')
        .select(['recipient', 'seq'])
        .orderBy('seq')
        .execute();
      expect(stored.filter((r) => r.recipient === bobHandle).map((r) => Number(r.seq))).toEqual(
        seqs,
      );
      expect(stored.filter((r) => r.recipient === aliceHandle)).toHaveLength(20);
      await bob.locator('.conversations a', { hasText: aliceHandle }).click();
      await bob.locator('.msg .text', { hasText: texts[19] }).waitFor();
      expect((await threadOf(bob)).map(([who, text, seq]) => [who, text, seq])).toEqual(
        texts.map((t, i) => [aliceHandle, t, seqs[i]]),
      );
    },
    BROWSER_TIMEOUT_MS,
  );

  it(
    'a send that fails stays in the thread with why and a retry; the text after it still goes',
    async () => {
      let refused = 0;
      await alice.route('**/v1/messages', async (route) => {
        if (refused === 0) {
          refused += 1;
          await route.abort('connectionrefused');
        } else {
          await route.continue();
        }
      });
      await alice.locator('#compose').fill('this one meets a dead network');
      await alice.locator('#compose').press('Enter');
      await sendInBrowser(alice, 'and this one goes');
      const failed = alice.locator('.msg[data-state="failed"]');
      await failed.waitFor();
      expect(await failed.locator('.text').textContent()).toBe('this one meets a dead network');
      expect(await failed.locator('.state').textContent()).toMatch(
        /^Not sent: Sending to .*: the relay cannot be reached/,
      );
      await screenshot(alice, 'failed-send');
      await alice.unroute('**/v1/messages');
      await failed.getByRole('button', { name: 'Retry' }).click();
      await alice
        .locator('.msg[data-state="stored"] .text', { hasText: 'this one meets a dead network' })
        .waitFor();
      expect(await alice.locator('.msg[data-state="failed"]').count()).toBe(0);
      await bob.locator('.msg .text', { hasText: 'this one meets a dead network' }).waitFor();
      const bobSees = (await threadOf(bob)).map(([, text]) => text).slice(-2);
      expect(bobSees).toEqual(['and this one goes', 'this one meets a dead network']);
    },
    BROWSER_TIMEOUT_MS,
  );

  it(
    'conversations show unread counts, a preview of the last message, the latest first',
    async () => {
      const carol = (await world.newPage()).page;
      await registerInBrowser(carol, world.url, carolHandle);
      await openConversation(carol, bobHandle);
      // Bob looks at alice's thread while carol writes to him twice.
      await sendInBrowser(carol, 'Hi Bob, Carol here.');
      await sendInBrowser(carol, 'Lunch tomorrow?');
      await bob.locator('.conversations a', { hasText: carolHandle }).waitFor();
      await bob.locator('.conversations a .preview', { hasText: 'Lunch tomorrow?' }).waitFor();
      expect(await conversationsOf(bob)).toEqual([
        [carolHandle, '2', 'Lunch tomorrow?'],
        [aliceHandle, '', 'this one meets a dead network'],
      ]);
      // Alice writes: her conversation moves to the top with one unread.
      await sendInBrowser(alice, 'Still there?');
      await bob.locator('.conversations a .preview', { hasText: 'Still there?' }).waitFor();
      expect((await conversationsOf(bob))[0]).toEqual([aliceHandle, '', 'Still there?']);
      // Bob was reading alice's thread, so that one is read; opening carol's reads hers.
      await bob.locator('.conversations a', { hasText: carolHandle }).click();
      await bob.locator('#thread-title', { hasText: carolHandle }).waitFor();
      await bob.locator('.conversations a .count').waitFor({ state: 'detached' });
      await sendInBrowser(bob, 'Yes, at one.');
      expect(await conversationsOf(bob)).toEqual([
        [carolHandle, '', 'You: Yes, at one.'],
        [aliceHandle, '', 'Still there?'],
      ]);
      // Read marks survive a reload; alice's next message counts one.
      await bob.reload();
      await waitForLive(bob);
      await sendInBrowser(alice, 'Bob?');
      await bob.locator('.conversations a .count', { hasText: '1' }).waitFor();
      expect(await conversationsOf(bob)).toEqual([
        [aliceHandle, '1', 'Bob?'],
        [carolHandle, '', 'You: Yes, at one.'],
      ]);
      await screenshot(bob, 'conversations');
    },
    BROWSER_TIMEOUT_MS,
  );

  it(
    'a second browser importing the same key shows both sides of every conversation',
    async () => {
      await bob.locator('.conversations a', { hasText: aliceHandle }).click();
      await sendInBrowser(bob, 'Here, sorry.');
      await alice.locator('.msg .text', { hasText: 'Here, sorry.' }).waitFor();
      const laptop = await secondDevice(world, alice, aliceHandle);
      await laptop.locator('.conversations a', { hasText: bobHandle }).click();
      await laptop.locator('.msg .text', { hasText: 'Bob?' }).waitFor();
      await alice.goto(`${world.url}/#/c/${bobHandle}`);
      const onPhone = await threadOf(alice);
      const onLaptop = await threadOf(laptop);
      // The same words, sides and order; the laptop knows sent ones by their copies' seqs.
      expect(onLaptop.map(([who, text]) => [who, text])).toEqual(
        onPhone.map(([who, text]) => [who, text]),
      );
      expect(onLaptop.filter(([who]) => who === 'You')).toHaveLength(24);
      expect(onLaptop.at(-1)?.slice(0, 2)).toEqual([bobHandle, 'Here, sorry.']);
      // Sent from the laptop: bob gets it, and the first browser shows it as sent.
      await sendInBrowser(laptop, 'Writing from my laptop now.');
      await bob.locator('.msg .text', { hasText: 'Writing from my laptop now.' }).waitFor();
      await alice
        .locator('.group.out .msg .text', { hasText: 'Writing from my laptop now.' })
        .waitFor();
      expect(await laptop.locator('.msg .text', { hasText: 'Writing' }).count()).toBe(1);
      await screenshot(laptop, 'second-device');
    },
    BROWSER_TIMEOUT_MS,
  );
});
