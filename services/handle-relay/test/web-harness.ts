import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import http, { type Server } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { findChromium } from '@svc/testing/browser';
import { createTestApp, type TestApp } from './test-app.js';

const SERVICE_DIR = path.resolve(import.meta.dirname, '..');

/** Where the browser tests leave screenshots and measurements (git-ignored). */
export const ARTIFACTS_DIR = path.join(SERVICE_DIR, 'test-artifacts');

/** A relay serving a freshly built web app, and a headless Chromium to open it. */
export interface WebWorld {
  t: TestApp;
  url: string;
  /** The built app this relay serves (its web_dir). */
  webDir: string;
  browser: Browser;
  /** Requests a page made to anything but the relay (the app must make none). */
  outside: string[];
  /** Sockets of open inbox streams, to cut them as a network failure would. */
  streamSockets: Set<Socket>;
  /** The URL of every stream request, in order. */
  streamUrls: string[];
  /** A fresh browser profile (its own IndexedDB), phone-sized if asked. */
  newPage(options?: { phone?: boolean }): Promise<{ context: BrowserContext; page: Page }>;
  close(): Promise<void>;
}

/** Builds the app into the test's data folder and serves it from a listening relay. */
export async function startWebWorld(label: string): Promise<WebWorld> {
  const webDir = fs.mkdtempSync(path.join(os.tmpdir(), `handle-relay-${label}-web-`));
  execFileSync(process.execPath, [path.join(SERVICE_DIR, 'web', 'build.mjs'), webDir]);
  const served = await createTestApp(label, { web_dir: webDir });
  const server = await new Promise<Server>((resolve) => {
    const s = http.createServer(served.app).listen(0, '127.0.0.1', () => resolve(s));
  });
  const streamSockets = new Set<Socket>();
  const streamUrls: string[] = [];
  server.on('request', (req: http.IncomingMessage) => {
    if (!req.url?.includes('/stream')) return;
    streamUrls.push(req.url);
    streamSockets.add(req.socket);
    req.socket.once('close', () => streamSockets.delete(req.socket));
  });
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const browser = await chromium.launch({
    executablePath: findChromium(),
    headless: true,
    // Root in a container has no user namespaces for Chromium's sandbox.
    args: ['--no-sandbox'],
  });
  const contexts: BrowserContext[] = [];
  const outside: string[] = [];
  return {
    t: served,
    url,
    webDir,
    browser,
    outside,
    streamSockets,
    streamUrls,
    async newPage(options = {}) {
      const context = await browser.newContext({
        baseURL: url,
        viewport: options.phone ? { width: 390, height: 780 } : { width: 1100, height: 720 },
      });
      await context.grantPermissions(['notifications'], { origin: url });
      contexts.push(context);
      const page = await context.newPage();
      page.on('request', (req) => {
        if (!req.url().startsWith(`${url}/`) && !req.url().startsWith('blob:')) {
          outside.push(req.url());
        }
      });
      return { context, page };
    },
    async close() {
      for (const context of contexts) await context.close();
      await browser.close();
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
      await served.close();
      fs.rmSync(webDir, { recursive: true, force: true });
    },
  };
}

/** Creates a key in the page and claims `handle`; resolves on the chat screen. */
export async function registerInBrowser(page: Page, url: string, handle: string): Promise<void> {
  await page.goto(url);
  await page.getByRole('button', { name: 'Create a new key' }).click();
  await page.getByLabel('Handle', { exact: true }).fill(handle);
  await page.getByRole('button', { name: 'Claim' }).click();
  await page.locator('#who', { hasText: `${handle}@` }).waitFor();
  await waitForLive(page);
}

/**
 * A second device of `handle`: the key file exported from `page`'s Profile, imported in a
 * fresh browser profile, whose inbox stream is open.
 */
export async function secondDevice(world: WebWorld, page: Page, handle: string): Promise<Page> {
  await page.getByRole('link', { name: 'Profile' }).click();
  const download = page.waitForEvent('download');
  await page.getByRole('button', { name: 'Export key file' }).click();
  const file = path.join(world.t.dataDir, `${handle}.${Date.now()}.key.json`);
  await (await download).saveAs(file);
  const { page: other } = await world.newPage();
  await other.goto(world.url);
  await other.getByLabel(/import a key file/i).setInputFiles(file);
  await other.locator('#who', { hasText: `${handle}@` }).waitFor();
  await waitForLive(other);
  return other;
}

/** Waits until the page's inbox stream is open. */
export async function waitForLive(page: Page): Promise<void> {
  await page.locator('body[data-sync="live"]').waitFor();
}

/** Opens the conversation with `peer` through the "Write to" form. */
export async function openConversation(page: Page, peer: string): Promise<void> {
  await page.getByLabel('Write to').fill(peer);
  await page.getByRole('button', { name: 'Open' }).click();
  await page.locator('#thread-title', { hasText: peer }).waitFor();
}

/** Types and sends a message in the open conversation; resolves once the relay stored it. */
export async function sendInBrowser(page: Page, text: string): Promise<void> {
  await page.locator('#compose').fill(text);
  await page.locator('#compose').press('Enter');
  await page
    .locator('.group.out .msg[data-state="stored"] .text', { hasText: exactly(text) })
    .waitFor();
}

/** A pattern matching exactly `text`. */
export function exactly(text: string): RegExp {
  return new RegExp(`^${text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}$`);
}

/** The open thread as [sender label, text, seq] triples, in the order shown. */
export async function threadOf(page: Page): Promise<[string, string, number][]> {
  const shown: [string, string, number][] = [];
  for (const group of await page.locator('.messages .group').all()) {
    const sender = (await group.locator('.sender').textContent()) ?? '';
    for (const message of await group.locator('.msg').all()) {
      const text = (await message.locator('.text').textContent()) ?? '';
      shown.push([sender, text, Number(await message.getAttribute('data-seq'))]);
    }
  }
  return shown;
}

/** Saves a screenshot under ARTIFACTS_DIR. */
export async function screenshot(page: Page, name: string): Promise<string> {
  fs.mkdirSync(ARTIFACTS_DIR, { recursive: true });
  const file = path.join(ARTIFACTS_DIR, `${name}.png`);
  await page.screenshot({ path: file });
  return file;
}
