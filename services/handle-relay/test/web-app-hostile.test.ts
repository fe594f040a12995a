import http, { type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describeInBrowser } from '@svc/testing/browser';
import type { BrowserContext, Page } from 'playwright-core';
import {
  generateKeyPair,
  primaryOf,
  RelayClient,
  sealText,
  type HandleRecord,
} from '../src/client/index.js';
import { uniqueHandle } from './handle-factories.js';
import { registerInBrowser, screenshot, startWebWorld, type WebWorld } from './web-harness.js';

const BROWSER_TIMEOUT_MS = 90_000;

/**
 * Markup a hostile sender puts wherever it can reach the recipient's screen. Each vector that
 * ran would set `window.__xss` or fetch a `/xss/` path; each that got into the page as markup
 * would leave an element the app never makes.
 */
const markup = (where: string) =>
  `<img src="/xss/${where}" onerror="window.__xss='${where}'">` +
  `<script>window.__xss='${where}-script'</script>` +
  `<svg onload="window.__xss='${where}-svg'"></svg><iframe src="/xss/${where}-frame"></iframe>` +
  `<a href="javascript:window.__xss='${where}-link'">${where}</a>`;

/** Elements and attributes the app never makes; any of them is injected markup. */
const INJECTED = `(() => [...document.querySelectorAll('body *')].filter((el) =>
  ['IMG', 'SCRIPT', 'SVG', 'svg', 'IFRAME', 'OBJECT', 'EMBED', 'STYLE', 'LINK', 'META'].includes(el.tagName) ||
  [...el.attributes].some((a) => a.name.startsWith('on') || /^\\s*javascript:/i.test(a.value)),
).map((el) => el.outerHTML.slice(0, 120)))()`;

/** What ran or was blocked in the page: set before any script of the app runs. */
const WATCH = `
  window.__violations = [];
  document.addEventListener('securitypolicyviolation', (e) => {
    window.__violations.push(e.violatedDirective + ' ' + e.blockedURI);
  });
`;

describeInBrowser()('the web app against hostile content', () => {
  let world: WebWorld;
  let bob: { context: BrowserContext; page: Page };
  const bobHandle = uniqueHandle('bob');
  const malloryHandle = uniqueHandle('mallory');
  const mallory = generateKeyPair();
  const dialogs: string[] = [];
  const xssRequests: string[] = [];
  let api: RelayClient;
  let framer: Server | undefined;

  beforeAll(async () => {
    world = await startWebWorld('web_hostile');
    api = new RelayClient({ baseUrl: world.url });
    bob = await world.newPage();
    await bob.context.addInitScript(WATCH);
    bob.page.on('dialog', (dialog) => {
      dialogs.push(dialog.message());
      void dialog.dismiss();
    });
    bob.page.on('request', (req) => {
      if (new URL(req.url()).pathname.startsWith('/xss/')) xssRequests.push(req.url());
    });
    await registerInBrowser(bob.page, world.url, bobHandle);
    await api.register('relay.test', malloryHandle, mallory);
  }, BROWSER_TIMEOUT_MS);
  afterAll(async () => {
    framer?.closeAllConnections();
    await new Promise((resolve) => (framer ? framer.close(resolve) : resolve(undefined)));
    await world?.close();
  }, BROWSER_TIMEOUT_MS);

  /** What the page ran, injected or had blocked, so far. */
  async function harm(page: Page) {
    return {
      ran: await page.evaluate('window.__xss ?? null'),
      injected: await page.evaluate(INJECTED),
      blocked: await page.evaluate('window.__violations'),
      dialogs,
      xssRequests,
    };
  }
  const noHarm = { ran: null, injected: [], blocked: [], dialogs: [], xssRequests: [] };

  it(
    'shows a sender’s markup in text, handle, address and proofs as text: nothing runs, nothing is injected',
    async () => {
      const { page, context } = bob;
      const bobRecord = await api.lookup(bobHandle);
      const text = markup('text');
      const hostileHandle = `${markup('handle')}${malloryHandle}`;
      // The proofs a sender publishes are checked only for their `channel:identifier` shape.
      const proofs = [`github:${markup('proof')}`, `site:"><script>window.__xss='p2'</script>`];
      await api.setProofs(malloryHandle, proofs, mallory);
      expect((await api.lookup(malloryHandle)).proofs).toEqual(proofs);
      // This relay checks handles; one that does not (or lies) names the sender with markup.
      const malloryRecord = await api.lookup(malloryHandle);
      await context.route(
        (url) =>
          url.pathname === `/v1/by-primary/${encodeURIComponent(primaryOf(mallory.publicKey))}`,
        (route) =>
          route.fulfill({
            json: { ...malloryRecord, handle: hostileHandle, fqhn: `${hostileHandle}@relay.test` },
          }),
      );
      // The profile's own record as such a relay could tell it.
      const hostileOwn: HandleRecord = {
        ...bobRecord,
        fqhn: `${markup('fqhn')}@relay.test`,
        sigchain_url: `javascript:window.__xss='sigchain'//${markup('sigchain')}`,
        proofs,
      };
      await context.route(
        (url) => url.pathname === `/v1/u/${bobHandle}`,
        (route) => route.fulfill({ json: hostileOwn }),
      );

      // A message that opens; one addressed (inside the encryption) to markup; one whose
      // envelope names markup as its cipher suite.
      await api.send(
        bobHandle,
        sealText({
          text,
          to: bobRecord.fqhn,
          recipientPrimary: bobRecord.primary,
          sender: mallory,
        }),
      );
      const hostileTo = `${markup('to')}@relay.test`;
      await api.send(
        bobHandle,
        sealText({
          text: 'x',
          to: hostileTo,
          recipientPrimary: bobRecord.primary,
          sender: mallory,
        }),
      );
      const hostileAlg = markup('alg');
      await api.send(bobHandle, { v: 1, alg: hostileAlg, from: 'x', nonce: 'x', ciphertext: 'x' });

      await page.locator('.conversations a .peer', { hasText: hostileHandle }).click();
      await page.locator('.msg .text').first().waitFor();
      expect(await page.locator('.msg .text').allTextContents()).toEqual([text]);
      expect(await page.locator('.group.in .sender').textContent()).toBe(hostileHandle);
      expect(await page.locator('#thread-title').textContent()).toBe(hostileHandle);
      await screenshot(page, 'hostile-thread');

      await page.locator('.conversations a .peer', { hasText: '(unreadable)' }).click();
      await page.locator('.msg.unreadable').nth(1).waitFor();
      expect(await page.locator('.msg .text').allTextContents()).toEqual([
        `Could not open: message is addressed to ${hostileTo}, not to ${bobRecord.fqhn}`,
        `Could not open: unsupported envelope alg ${JSON.stringify(hostileAlg)}`,
      ]);

      // A link someone sent Bob, naming a conversation with markup.
      await page.goto(`${world.url}/#/c/${encodeURIComponent(markup('link'))}`);
      await page.locator('#thread-title', { hasText: markup('link') }).waitFor();

      await page.getByRole('link', { name: 'Profile' }).click();
      await page.locator('#proofs').waitFor();
      expect(await page.locator('#proofs').inputValue()).toBe(proofs.join('\n'));
      expect(await page.locator('.record dd').allTextContents()).toEqual([
        hostileOwn.fqhn,
        bobRecord.primary,
        expect.any(String) as string,
        // The relay's own chain of the key, whatever URL the record names.
        `${world.url}/v1/sigchains/ed25519/${bobRecord.primary.slice('ed25519:'.length)}`,
      ]);
      expect(await page.locator('#sigchain-link').getAttribute('href')).toBe(
        `${world.url}/v1/sigchains/ed25519/${bobRecord.primary.slice('ed25519:'.length)}`,
      );
      await screenshot(page, 'hostile-profile');

      expect(await harm(page)).toEqual(noHarm);
      expect(world.outside).toEqual([]);
    },
    BROWSER_TIMEOUT_MS,
  );

  it(
    'cannot be framed by another site (the frame stays empty)',
    async () => {
      framer = http.createServer((_req, res) => {
        res.setHeader('Content-Type', 'text/html');
        res.end(`<!doctype html><title>framer</title><iframe src="${world.url}/"></iframe>`);
      });
      await new Promise<void>((resolve) => framer!.listen(0, '127.0.0.1', resolve));
      const framerUrl = `http://127.0.0.1:${(framer.address() as AddressInfo).port}/`;
      const { page } = await world.newPage();
      const refused: string[] = [];
      page.on('console', (message) => {
        if (message.text().includes('frame-ancestors')) refused.push(message.text());
      });
      await page.goto(framerUrl);
      const framed = page.frames().filter((frame) => frame !== page.mainFrame());
      expect(framed).toHaveLength(1);
      // Chromium puts its error page where the app would have loaded.
      expect(framed[0]!.url()).not.toContain(world.url);
      expect(refused).toEqual([expect.stringContaining("frame-ancestors 'none'") as string]);
    },
    BROWSER_TIMEOUT_MS,
  );
});
