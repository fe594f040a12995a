import fs from 'node:fs';
import path from 'node:path';
import * as esbuild from 'esbuild';
import { chromium } from 'playwright-core';
import { findChromium } from '@svc/testing/browser';
import { waitUntil } from '@svc/testing/service-process';
import {
  AssetStoreContainer,
  HandleRelayContainer,
  type StartedAssetStoreContainer,
  type StartedHandleRelayContainer,
} from '../packages/testcontainers/src/index.js';
import { serviceImage } from '../packages/testcontainers/test/prebuilt.js';
import { readmeExample, runIn, scratchProject, type Published } from './scratch-project.js';

// The packages as another project installs them: packed, installed from their tarballs into
// a project outside the workspace, and each README's example run there.

let scratch: string;
let assetStore: StartedAssetStoreContainer;
let relay: StartedHandleRelayContainer;
let images: { assetStore: string; handleRelay: string };

beforeAll(async () => {
  images = {
    assetStore: await serviceImage('asset-store'),
    handleRelay: await serviceImage('handle-relay'),
  };
  [scratch, assetStore, relay] = await Promise.all([
    scratchProject(),
    new AssetStoreContainer(images.assetStore).start(),
    new HandleRelayContainer(images.handleRelay).start(),
  ]);
});

afterAll(async () => {
  await Promise.all([assetStore?.stop(), relay?.stop()]);
  if (scratch) fs.rmSync(scratch, { recursive: true, force: true });
});

/** Each client package, the variable its example reads the service's address from, what it prints. */
const clients: { pkg: Published; urlVariable: string; url: () => string; prints: string }[] = [
  {
    pkg: 'asset-store-client',
    urlVariable: 'ASSET_STORE_URL',
    url: () => assetStore.getBaseUrl(),
    prints: 'application/json 1',
  },
  {
    pkg: 'handle-relay-client',
    urlVariable: 'RELAY_URL',
    url: () => relay.getBaseUrl(),
    prints: 'hello',
  },
];

describe('the packed packages, installed from their tarballs', () => {
  it('@can-services/testcontainers: the README example is the project’s Jest test, and passes', async () => {
    fs.writeFileSync(path.join(scratch, 'readme.test.mjs'), readmeExample('testcontainers'));
    const ran = await runIn(scratch, 'npm', ['test', '--silent'], {
      ASSET_STORE_IMAGE: images.assetStore,
      HANDLE_RELAY_IMAGE: images.handleRelay,
    });
    const output = `${ran.stdout}\n${ran.stderr}`;
    expect({ code: ran.code, output }).toEqual({
      code: 0,
      output: expect.stringContaining('Tests:       1 passed, 1 total') as string,
    });
  });

  it.each(clients)(
    '@can-services/$pkg: the README example runs in Node against the service',
    async ({ pkg, urlVariable, url, prints }) => {
      fs.writeFileSync(path.join(scratch, `${pkg}.mjs`), readmeExample(pkg));
      const ran = await runIn(scratch, process.execPath, [`${pkg}.mjs`], { [urlVariable]: url() });
      expect({ code: ran.code, stdout: ran.stdout, stderr: ran.stderr }).toEqual({
        code: 0,
        stdout: `${prints}\n`,
        stderr: '',
      });
    },
  );

  it.each(clients)(
    '@can-services/$pkg: the same example, bundled for a browser, runs in Chromium',
    async ({ pkg, urlVariable, url, prints }) => {
      // Docker publishes a random port on IPv4 and IPv6 separately, and the two can differ:
      // Chromium tries localhost's ::1 first and met the other container there (404 / 405).
      const base = url().replace('//localhost:', '//127.0.0.1:');
      // What a web app's bundler does with the package: the browser entry, no Node built-ins.
      const bundle = await esbuild.build({
        stdin: { contents: readmeExample(pkg), resolveDir: scratch, loader: 'js' },
        bundle: true,
        write: false,
        format: 'esm',
        platform: 'browser',
        target: 'es2022',
        define: { [`process.env.${urlVariable}`]: JSON.stringify(base) },
        logLevel: 'silent',
      });
      const browser = await chromium.launch({
        executablePath: findChromium(),
        // The page below is fulfilled by the test, so it has no address and Chromium counts it
        // public; where the service is reached on a private address (Docker's 172.17.0.1 in CI),
        // Private Network Access would block the example's fetch. A web app served by the
        // service itself has the service's address and never meets this.
        args: [
          '--no-sandbox',
          '--disable-features=BlockInsecurePrivateNetworkRequests,PrivateNetworkAccessSendPreflights,LocalNetworkAccessChecks',
        ],
      });
      try {
        const page = await browser.newPage();
        const logs: string[] = [];
        page.on('console', (m) => logs.push(`${m.type()}: ${m.text()}`));
        page.on('pageerror', (e) => logs.push(`pageerror: ${e.message}`));
        // The page is served as if from the service's origin (as its own web app is), so the
        // example's requests go to the real service without a cross-origin question.
        await page.route(`${base}/example.html`, (route) =>
          route.fulfill({
            contentType: 'text/html',
            body: `<!doctype html><script type="module">${bundle.outputFiles[0]!.text}</script>`,
          }),
        );
        await page.goto(`${base}/example.html`);
        await waitUntil(() => Promise.resolve(logs.length > 0), 20_000);
        expect(logs).toEqual([`log: ${prints}`]);
      } finally {
        await browser.close();
      }
    },
  );
});
