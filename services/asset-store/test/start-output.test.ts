import path from 'node:path';
import { startOutputSuite } from '@svc/testing/start-output';

describe('what asset-store prints when run by hand', () => {
  startOutputSuite({
    name: 'asset-store',
    entry: path.resolve(import.meta.dirname, '..', 'src', 'main.ts'),
    config: (sandbox, port) =>
      sandbox.configFile(`storage_root: ./assets\nlisten: 127.0.0.1:${port}\n`),
    configOnDatabase: (sandbox, port, url) =>
      sandbox.configFile(
        `storage_root: ./assets\nlisten: 127.0.0.1:${port}\ndatabase_url: ${url}\n`,
        'starting.yaml',
      ),
    ready: (port) =>
      `asset-store ready: http://127.0.0.1:${port}/ (console: http://127.0.0.1:${port}/console/, ` +
      `API reference: http://127.0.0.1:${port}/docs)\n`,
    portInUse: (port) =>
      `asset-store: 127.0.0.1:${port} is in use: set \`listen\` in the config file, ` +
      'ASSET_STORE_LISTEN or --listen\n',
    // `/` leads to the console (whose build the console tests check; CI does not build it).
    async servesFrontEnd(port) {
      const root = await fetch(`http://127.0.0.1:${port}/`, { redirect: 'manual' });
      expect(root.status).toBe(308);
      expect(root.headers.get('location')).toBe('/console/');
    },
  });
});
