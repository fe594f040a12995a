import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import http, { type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import {
  chromium,
  type Browser,
  type BrowserContext,
  type BrowserContextOptions,
  type Page,
} from 'playwright-core';
import { findChromium } from '@svc/testing/browser';
import request from 'supertest';
import type { Config } from '../src/config.js';
import { createTestApp, type TestApp } from './test-app.js';

const SERVICE_DIR = path.resolve(import.meta.dirname, '..');

/** Where the browser tests leave screenshots and measurements (git-ignored). */
export const ARTIFACTS_DIR = path.join(SERVICE_DIR, 'test-artifacts');

/** Builds the console into a fresh folder (as `pnpm build` does into web/dist). */
export function buildConsole(label: string): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), `asset-store-${label}-console-`));
  execFileSync(process.execPath, [path.join(SERVICE_DIR, 'web', 'build.mjs'), dir]);
  return dir;
}

/** An asset store serving a freshly built console, and a headless Chromium to open it. */
export interface ConsoleWorld {
  t: TestApp;
  url: string;
  /** Requests a page made to anything but the service (the console must make none). */
  outside: string[];
  /** Every API request a page made (path and query), in order. */
  apiRequests: string[];
  browser: Browser;
  /** A page in a fresh context; `options` add to (or override) the defaults (e.g. a time zone). */
  newPage(options?: BrowserContextOptions): Promise<{ context: BrowserContext; page: Page }>;
  /** Cuts every open connection to the service (as a restart or a network drop would). */
  dropConnections(): void;
  close(): Promise<void>;
}

/** Builds the console, starts the service on a real database and a browser. */
export async function startConsoleWorld(
  label: string,
  overrides: Partial<Record<keyof Config, unknown>> = {},
): Promise<ConsoleWorld> {
  const consoleDir = buildConsole(label);
  const t = await createTestApp(label, overrides, { consoleDir });
  const server = await new Promise<Server>((resolve) => {
    const s = http.createServer(t.app).listen(0, '127.0.0.1', () => resolve(s));
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
  const apiRequests: string[] = [];
  return {
    t,
    url,
    outside,
    apiRequests,
    browser,
    async newPage(options = {}) {
      const context = await browser.newContext({
        baseURL: url,
        viewport: { width: 1280, height: 800 },
        acceptDownloads: true,
        ...options,
      });
      contexts.push(context);
      const page = await context.newPage();
      page.on('request', (req) => {
        const u = req.url();
        if (u.startsWith(`${url}/api/`)) apiRequests.push(u.slice(url.length));
        // The browser's own PDF viewer (an extension built into Chromium) is not a request
        // to another origin; neither is a blob: the page made.
        else if (
          !u.startsWith(`${url}/`) &&
          !u.startsWith('blob:') &&
          !u.startsWith('chrome-extension://') &&
          !u.startsWith('chrome://')
        )
          outside.push(u);
      });
      return { context, page };
    },
    dropConnections() {
      server.closeAllConnections();
    },
    async close() {
      for (const context of contexts) await context.close();
      await browser.close();
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
      await t.close();
      fs.rmSync(consoleDir, { recursive: true, force: true });
    },
  };
}

/** Saves a screenshot under ARTIFACTS_DIR (and, when `docs` is given, as docs/<docs>.png). */
export async function screenshot(page: Page, name: string, docs?: string): Promise<string> {
  fs.mkdirSync(ARTIFACTS_DIR, { recursive: true });
  const file = path.join(ARTIFACTS_DIR, `${name}.png`);
  await page.screenshot({ path: file });
  if (docs && process.env.CONSOLE_DOCS_SCREENSHOTS) {
    fs.copyFileSync(file, path.join(SERVICE_DIR, 'docs', `${docs}.png`));
  }
  return file;
}

/** Hashes of the grid's cells now in the DOM, in order. */
export async function gridHashes(page: Page): Promise<string[]> {
  return page.evaluate<string[]>(
    "[...document.querySelectorAll('.grid .cell[data-hash]')].map((c) => c.dataset.hash)",
  );
}

/**
 * Polls `check` from the test until it holds (`page.waitForFunction` with a string would be
 * evaluated in the page, which the console's CSP, rightly, refuses).
 */
export async function until(check: () => Promise<boolean>, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`not true within ${timeoutMs} ms: ${String(check)}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** Waits until the grid has loaded its first page and shows exactly `count` assets. */
export async function waitForGrid(page: Page, count: number): Promise<void> {
  await page.locator('.grid[aria-busy="false"]').waitFor();
  await until(async () => (await page.locator('.grid .cell[data-hash]').count()) === count);
}

/**
 * Tampers with `filename`'s file and runs the verifier (`POST /admin/verify` with `adminToken`),
 * which must flag exactly that one; returns the verifier's counts.
 */
export async function corruptThroughVerifier(
  world: ConsoleWorld,
  filename: string,
  adminToken: string,
): Promise<{ checked: number; corrupted: number; missing: number }> {
  fs.writeFileSync(path.join(world.t.storageRoot, filename), 'tampered');
  const verify = await request(world.t.app)
    .post('/api/v1/can/0/admin/verify')
    .set('Authorization', `Bearer ${adminToken}`);
  expect(verify.status).toBe(200);
  const counts = (verify.body as { data: { checked: number; corrupted: number; missing: number } })
    .data;
  expect(counts.corrupted).toBe(1);
  return counts;
}
