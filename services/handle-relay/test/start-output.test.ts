import fs from 'node:fs';
import path from 'node:path';
import { startOutputSuite } from '@svc/testing/start-output';

const SETTINGS = [
  'server: relay.example',
  'vapid_key_path: ./vapid.json',
  'log_key_path: ./log-key.json',
];

describe('what handle-relay prints when run by hand', () => {
  startOutputSuite({
    name: 'handle-relay',
    entry: path.resolve(import.meta.dirname, '..', 'src', 'main.ts'),
    // An embedded database in the test's folder, with a chat app.
    config(sandbox, port) {
      fs.mkdirSync(path.join(sandbox.dir, 'web'));
      fs.writeFileSync(path.join(sandbox.dir, 'web', 'index.html'), '<!doctype html><html></html>');
      return sandbox.configFile(
        [...SETTINGS, `bind: 127.0.0.1:${port}`, 'db: ./db', 'web_dir: ./web', ''].join('\n'),
      );
    },
    configOnDatabase: (sandbox, port, url) =>
      sandbox.configFile(
        [...SETTINGS, `bind: 127.0.0.1:${port}`, `db: ${url}`, ''].join('\n'),
        'starting.yaml',
      ),
    ready: (port) =>
      `handle-relay ready: http://127.0.0.1:${port}/ (chat app: http://127.0.0.1:${port}/, ` +
      `API reference: http://127.0.0.1:${port}/docs)\n`,
    portInUse: (port) =>
      `handle-relay: 127.0.0.1:${port} is in use: set \`bind\` in the config file, ` +
      'HANDLE_RELAY_BIND or --bind\n',
    async servesFrontEnd(port) {
      const app = await fetch(`http://127.0.0.1:${port}/`);
      expect(app.status).toBe(200);
      expect(await app.text()).toBe('<!doctype html><html></html>');
    },
  });
});
