import { describeInBrowser } from '@svc/testing/browser';
import fs from 'node:fs';
import path from 'node:path';
import type { BrowserContext, Page } from 'playwright-core';
import { runCli } from '../src/cli/cli.js';
import { readKeyFile } from '../src/client/key-file.js';
import { primaryOf, toHex } from '../src/client/index.js';
import { uniqueHandle } from './handle-factories.js';
import {
  registerInBrowser,
  screenshot,
  sendInBrowser,
  startWebWorld,
  threadOf,
  waitForLive,
  type WebWorld,
} from './web-harness.js';

const BROWSER_TIMEOUT_MS = 90_000;

describeInBrowser()('the web app with the CLI, key files and Web Push', () => {
  let world: WebWorld;
  let bob: { context: BrowserContext; page: Page };
  const bobHandle = uniqueHandle('bob');
  const carolHandle = uniqueHandle('carol');
  let carolKeyFile: string;

  async function carol(...args: string[]) {
    let out = '';
    let err = '';
    const code = await runCli([...args, '--url', world.url, '--key', carolKeyFile], {
      stdout: (text) => (out += text),
      stderr: (text) => (err += text),
      env: {},
    });
    return { code, out, err };
  }

  beforeAll(async () => {
    world = await startWebWorld('web_interop');
    carolKeyFile = path.join(world.t.dataDir, 'carol.key.json');
    expect((await carol('keygen')).code).toBe(0);
    expect((await carol('register', carolHandle)).code).toBe(0);
    bob = await world.newPage();
    await registerInBrowser(bob.page, world.url, bobHandle);
  }, BROWSER_TIMEOUT_MS);
  afterAll(async () => {
    await world?.close();
  }, BROWSER_TIMEOUT_MS);

  it(
    'a message sent by the CLI opens in the browser, named by its sender’s handle',
    async () => {
      const sent = await carol('send', bobHandle, 'Hello Bob, from the command line');
      expect(sent.code).toBe(0);
      await bob.page.locator('.conversations a', { hasText: carolHandle }).click();
      await bob.page
        .locator('.group.in .msg .text', { hasText: 'from the command line' })
        .waitFor();
      expect(await bob.page.locator('.group.in .sender').textContent()).toBe(carolHandle);
    },
    BROWSER_TIMEOUT_MS,
  );

  it(
    'a message sent from the browser opens in the CLI',
    async () => {
      await sendInBrowser(bob.page, 'Hi Carol, from the browser');
      const inbox = await carol('inbox', carolHandle);
      expect(inbox.code).toBe(0);
      const lines = inbox.out
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l) as Record<string, unknown>);
      expect(lines).toEqual([
        // The copy of the CLI's own send, kept in carol's inbox for her other devices.
        {
          seq: expect.any(Number) as unknown,
          from: expect.stringMatching(/^ed25519:[0-9a-f]{64}$/) as unknown,
          from_handle: carolHandle,
          to: `${bobHandle}@relay.test`,
          text: 'Hello Bob, from the command line',
          sent_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT/) as unknown,
        },
        {
          seq: expect.any(Number) as unknown,
          from: expect.stringMatching(/^ed25519:[0-9a-f]{64}$/) as unknown,
          from_handle: bobHandle,
          text: 'Hi Carol, from the browser',
          sent_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT/) as unknown,
        },
      ]);
    },
    BROWSER_TIMEOUT_MS,
  );

  it(
    'the CLI’s key file imports into a browser, which then reads that handle’s inbox',
    async () => {
      const { page } = await world.newPage({ phone: true });
      await page.goto(world.url);
      await page.getByLabel(/import a key file/i).setInputFiles(carolKeyFile);
      await page.locator('#who', { hasText: `${carolHandle}@` }).waitFor();
      await waitForLive(page);
      await page.locator('.conversations a', { hasText: bobHandle }).click();
      await page.locator('.msg .text', { hasText: 'Hi Carol, from the browser' }).waitFor();
      // Both sides: what the CLI sent with this key shows as sent, from its copy.
      expect(await threadOf(page)).toEqual([
        ['You', 'Hello Bob, from the command line', expect.any(Number)],
        [bobHandle, 'Hi Carol, from the browser', expect.any(Number)],
      ]);
      await screenshot(page, 'phone-conversation');
      // And what this browser sends with the CLI's key, the CLI sees as sent (its copy).
      const cliInboxBefore = await carol('inbox', carolHandle);
      const lastSeq = Math.max(
        ...cliInboxBefore.out
          .trim()
          .split('\n')
          .map((l) => (JSON.parse(l) as { seq: number }).seq),
      );
      await sendInBrowser(page, 'Carol again, from her phone');
      await bob.page.locator('.msg .text', { hasText: 'Carol again, from her phone' }).waitFor();
      const after = await carol('inbox', carolHandle, '--since', String(lastSeq));
      expect(after.code).toBe(0);
      expect(JSON.parse(after.out)).toMatchObject({
        from_handle: carolHandle,
        to: `${bobHandle}@relay.test`,
        text: 'Carol again, from her phone',
      });
    },
    BROWSER_TIMEOUT_MS,
  );

  it(
    'a file that is no key file is refused in plain words',
    async () => {
      const { page } = await world.newPage();
      await page.goto(world.url);
      const bad = path.join(world.t.dataDir, 'not-a-key.json');
      fs.writeFileSync(bad, '{"hello":"world"}');
      await page.getByLabel(/import a key file/i).setInputFiles(bad);
      await page
        .locator('#status', {
          hasText: 'That file is not a Handle Relay key file (no ed25519 secret key).',
        })
        .waitFor();
    },
    BROWSER_TIMEOUT_MS,
  );

  it(
    'exports the key file the CLI reads, and edits the published proofs',
    async () => {
      await bob.page.getByRole('link', { name: 'Profile' }).click();
      await bob.page.getByLabel('Proofs').fill('github:bob\nmastodon:@bob@example.org');
      await bob.page.getByRole('button', { name: 'Save proofs' }).click();
      await bob.page.locator('#status', { hasText: 'Proofs saved (2).' }).waitFor();
      const record = (await (await fetch(`${world.url}/v1/u/${bobHandle}`)).json()) as {
        proofs: string[];
        primary: string;
      };
      expect(record.proofs).toEqual(['github:bob', 'mastodon:@bob@example.org']);
      await screenshot(bob.page, 'profile');

      const download = bob.page.waitForEvent('download');
      await bob.page.getByRole('button', { name: 'Export key file' }).click();
      const file = path.join(world.t.dataDir, 'bob.key.json');
      await (await download).saveAs(file);
      const keys = await readKeyFile(file);
      expect(primaryOf(keys.publicKey)).toBe(record.primary);
      expect(JSON.parse(fs.readFileSync(file, 'utf8'))).toEqual({
        alg: 'ed25519',
        primary: record.primary,
        public_key: toHex(keys.publicKey),
        secret_key: toHex(keys.secretKey),
      });
    },
    BROWSER_TIMEOUT_MS,
  );

  it(
    'a push delivered to the service worker shows a notification without the message text',
    async () => {
      const { page, context } = bob;
      await page.goto(`${world.url}/#/`);
      await page.evaluate('navigator.serviceWorker.ready.then(() => true)');
      const cdp = await context.newCDPSession(page);
      const registrationId = new Promise<string>((resolve) => {
        cdp.on('ServiceWorker.workerRegistrationUpdated', ({ registrations }) => {
          const ours = registrations.find((r) => r.scopeURL === `${world.url}/` && !r.isDeleted);
          if (ours) resolve(ours.registrationId);
        });
      });
      await cdp.send('ServiceWorker.enable');
      const secret = 'the secret text of a message';
      const sent = await carol('send', bobHandle, secret);
      const { seq } = JSON.parse(sent.out) as { seq: number };
      // The payload the relay pushes: metadata only (CONTRACT, Push).
      const deliver = async () =>
        cdp.send('ServiceWorker.deliverPushMessage', {
          origin: world.url,
          registrationId: await registrationId,
          data: JSON.stringify({ type: 'message', to: bobHandle, seq }),
        });
      await deliver();
      type Shown = { title: string; body: string; data: unknown }[];
      const notifications = () =>
        page.evaluate<Shown>(
          `navigator.serviceWorker.ready
          .then((r) => r.getNotifications())
          .then((list) => list.map((n) => ({ title: n.title, body: n.body, data: n.data })))`,
        );
      // The worker shows it on its own time: on a loaded machine that took over 5 s. A push
      // that reaches a worker still starting can be dropped, and a push service redelivers;
      // so does this test every 3 s (the notification's tag makes a repeat replace it).
      let shown = await notifications();
      let redeliverAt = Date.now() + 3_000;
      for (const until = Date.now() + 30_000; shown.length === 0 && Date.now() < until;) {
        await page.waitForTimeout(50);
        if (Date.now() > redeliverAt) {
          await deliver();
          redeliverAt = Date.now() + 3_000;
        }
        shown = await notifications();
      }
      expect(shown).toEqual([
        {
          title: `New message for ${bobHandle}`,
          body: 'Open Handle Relay to read it.',
          data: { seq },
        },
      ]);
      expect(JSON.stringify(shown)).not.toContain(secret);
      // A click opens #/seq/<seq>, which lands on the conversation holding it.
      await page.goto(`${world.url}/#/seq/${seq}`);
      await page.locator('#thread-title', { hasText: carolHandle }).waitFor();
      await page.locator('.msg .text', { hasText: secret }).waitFor();
      expect(world.outside).toEqual([]);
    },
    BROWSER_TIMEOUT_MS,
  );
});
