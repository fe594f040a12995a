import { describeInBrowser } from '@svc/testing/browser';
import type { Page } from 'playwright-core';
import { uniqueHandle } from './handle-factories.js';
import {
  openConversation,
  registerInBrowser,
  screenshot,
  sendInBrowser,
  startWebWorld,
  threadOf,
  waitForLive,
  type WebWorld,
} from './web-harness.js';

const BROWSER_TIMEOUT_MS = 90_000;

describeInBrowser()('the web app, two people in two browsers', () => {
  let world: WebWorld;
  let alice: Page;
  let bob: Page;
  const aliceHandle = uniqueHandle('alice');
  const bobHandle = uniqueHandle('bob');
  const texts: string[] = [];

  beforeAll(async () => {
    world = await startWebWorld('web_app');
    alice = (await world.newPage()).page;
    bob = (await world.newPage()).page;
  }, BROWSER_TIMEOUT_MS);
  afterAll(async () => {
    await world?.close();
  }, BROWSER_TIMEOUT_MS);

  it(
    'each registers a handle from a key made in the browser',
    async () => {
      await alice.goto(world.url);
      await screenshot(alice, 'welcome');
      await registerInBrowser(alice, world.url, aliceHandle);
      await registerInBrowser(bob, world.url, bobHandle);
      expect(await alice.locator('#who').textContent()).toBe(`${aliceHandle}@relay.test`);
      const record = await world.t.store.db
        .selectFrom('handle')
        .select(['handle'])
        .where('handle', 'in', [aliceHandle, bobHandle])
        .orderBy('handle')
        .execute();
      expect(record.map((r) => r.handle).sort()).toEqual([aliceHandle, bobHandle].sort());
    },
    BROWSER_TIMEOUT_MS,
  );

  it(
    'they exchange messages both ways, each arriving live in the other browser',
    async () => {
      await openConversation(alice, bobHandle);
      texts.push('Hi Bob, it is Alice.');
      await sendInBrowser(alice, texts[0]!);
      await bob.locator('.conversations a', { hasText: aliceHandle }).click();
      await bob.locator('.msg .text', { hasText: texts[0] }).waitFor();
      texts.push('Hello Alice! Bob here.');
      await sendInBrowser(bob, texts[1]!);
      await alice.locator('.group.in .msg .text', { hasText: texts[1] }).waitFor();
      texts.push('Shall we meet at noon?', 'By the fountain.');
      await sendInBrowser(alice, texts[2]!);
      await sendInBrowser(alice, texts[3]!);
      await bob.locator('.msg .text', { hasText: texts[3] }).waitFor();

      const bobSees = await threadOf(bob);
      expect(bobSees.map(([who, text]) => [who, text])).toEqual([
        [aliceHandle, texts[0]],
        ['You', texts[1]],
        [aliceHandle, texts[2]],
        [aliceHandle, texts[3]],
      ]);
      // Delivery order is the relay's seq, the same in both browsers.
      const seqs = bobSees.map(([, , seq]) => seq);
      expect([...seqs].sort((a, b) => a - b)).toEqual(seqs);
      expect((await threadOf(alice)).map(([, , seq]) => seq)).toEqual(seqs);
      await screenshot(alice, 'conversation');
    },
    BROWSER_TIMEOUT_MS,
  );

  it('the relay stores only version-1 envelopes, with no plaintext in them', async () => {
    const rows = await world.t.store.db
      .selectFrom('message')
      .select(['recipient', 'envelope'])
      .orderBy('seq')
      .execute();
    // Each message, and its sender's own copy (to the sender's own inbox).
    expect(rows).toHaveLength(texts.length * 2);
    for (const row of rows) {
      const envelope = JSON.parse(row.envelope) as Record<string, unknown>;
      expect(Object.keys(envelope)).toEqual(['v', 'alg', 'from', 'nonce', 'ciphertext']);
      expect(envelope).toMatchObject({ v: 1, alg: 'x25519-xsalsa20poly1305' });
      for (const text of texts) expect(row.envelope).not.toContain(text);
      for (const word of ['Alice', 'Bob', 'fountain', 'noon'])
        expect(row.envelope).not.toContain(word);
    }
  });

  it(
    'Bob reloads mid-conversation and sees every message exactly once',
    async () => {
      const reloaded = bob.reload();
      texts.push('Sent while Bob reloads', 'And one more');
      await sendInBrowser(alice, texts[4]!);
      await reloaded;
      await sendInBrowser(alice, texts[5]!);
      await bob.locator('.conversations a', { hasText: aliceHandle }).click();
      await bob.locator('.msg .text', { hasText: texts[5] }).waitFor();
      await waitForLive(bob);
      texts.push('After the reload, live');
      await sendInBrowser(alice, texts[6]!);
      await bob.locator('.msg .text', { hasText: texts[6] }).waitFor();
      const seen = await threadOf(bob);
      expect(seen.map(([, text]) => text)).toEqual(texts);
      expect(new Set(seen.map(([, , seq]) => seq)).size).toBe(texts.length);
    },
    BROWSER_TIMEOUT_MS,
  );

  it(
    'a dropped stream is resumed from the last seq seen, losing and repeating nothing',
    async () => {
      const received = (await threadOf(bob)).filter(([who]) => who !== 'You');
      const lastSeen = Math.max(...received.map(([, , seq]) => seq));
      const before = world.streamUrls.length;
      for (const socket of world.streamSockets) socket.destroy();
      texts.push('Sent while the stream was down');
      await sendInBrowser(alice, texts[7]!);
      await bob.locator('.msg .text', { hasText: texts[7] }).waitFor();
      const seen = await threadOf(bob);
      expect(seen.map(([, text]) => text)).toEqual(texts);
      // Bob's page came back by itself, signed afresh, from the last seq it had (not the
      // EventSource's own retry with its first URL, whose signature goes stale).
      const again = world.streamUrls
        .slice(before)
        .filter((u) => u.startsWith(`/v1/inbox/${bobHandle}/`))
        .map((u) => new URL(u, world.url).searchParams);
      expect(again.length).toBeGreaterThanOrEqual(1);
      // The catch-up through the inbox may already have fetched the message sent meanwhile.
      const since = Number(again[0]!.get('since'));
      expect([lastSeen, Math.max(...seen.map(([, , seq]) => seq))]).toContain(since);
      expect(again[0]!.get('auth')).toMatch(/^\d+:[0-9a-f]{128}$/);
    },
    BROWSER_TIMEOUT_MS,
  );

  it(
    'says plainly that a handle is taken, or that a handle does not exist',
    async () => {
      const carol = (await world.newPage()).page;
      await carol.goto(world.url);
      await carol.getByRole('button', { name: 'Create a new key' }).click();
      await carol.getByLabel('Handle', { exact: true }).fill(aliceHandle);
      await carol.getByRole('button', { name: 'Claim' }).click();
      await carol
        .locator('#status', { hasText: 'That handle is taken. Try another one.' })
        .waitFor();
      await openConversation(alice, bobHandle);
      await alice.getByLabel('Write to').fill('nobody-here');
      await alice.getByRole('button', { name: 'Open' }).click();
      await alice
        .locator('#status', {
          hasText: 'Opening a conversation with nobody-here: no one has that handle.',
        })
        .waitFor();
      expect(world.outside).toEqual([]);
    },
    BROWSER_TIMEOUT_MS,
  );
});
