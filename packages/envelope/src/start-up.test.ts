import net from 'node:net';
import { baseUrlOf, listenFailure, readyLine } from './start-up.js';

const LISTEN = { key: 'listen', env: 'ASSET_STORE_LISTEN' };

/** The error Node gives when listening on `port` of `host` fails while something holds it. */
async function listenError(host: string): Promise<unknown> {
  const holder = net.createServer();
  await new Promise<void>((resolve) => holder.listen(0, host, resolve));
  const { port } = holder.address() as net.AddressInfo;
  const second = net.createServer();
  try {
    return await new Promise((resolve) => {
      second.once('error', resolve);
      second.listen(port, host, () => resolve(undefined));
    });
  } finally {
    second.close();
    await new Promise((resolve) => holder.close(resolve));
  }
}

describe('start-up lines', () => {
  it('names the address in use and the setting that moves it, in one line', async () => {
    const err = (await listenError('127.0.0.1')) as { port: number };
    expect(listenFailure('asset-store', err, LISTEN)).toBe(
      `asset-store: 127.0.0.1:${err.port} is in use: set \`listen\` in the config file, ` +
        'ASSET_STORE_LISTEN or --listen\n',
    );
  });

  it('brackets an IPv6 address, and says nothing for other failures', () => {
    const denied = Object.assign(new Error('listen EACCES'), {
      code: 'EACCES',
      address: '::',
      port: 80,
    });
    expect(listenFailure('handle-relay', denied, { key: 'bind', env: 'HANDLE_RELAY_BIND' })).toBe(
      'handle-relay: [::]:80 is not allowed for this user: set `bind` in the config file, ' +
        'HANDLE_RELAY_BIND or --bind\n',
    );
    expect(listenFailure('asset-store', new Error('disk on fire'), LISTEN)).toBeUndefined();
    expect(listenFailure('asset-store', undefined, LISTEN)).toBeUndefined();
  });

  it('reaches a wildcard address through loopback', () => {
    expect(baseUrlOf({ address: '0.0.0.0', port: 8080 })).toBe('http://127.0.0.1:8080/');
    expect(baseUrlOf({ address: '::', port: 8080 })).toBe('http://[::1]:8080/');
    expect(baseUrlOf({ address: '::1', port: 81 })).toBe('http://[::1]:81/');
    expect(baseUrlOf({ address: '192.0.2.7', port: 80 })).toBe('http://192.0.2.7:80/');
  });

  it('writes the ready line with its places, or without any', () => {
    expect(readyLine('handle-relay', 'http://127.0.0.1:8081/', [])).toBe(
      'handle-relay ready: http://127.0.0.1:8081/\n',
    );
    expect(readyLine('asset-store', 'http://h/', ['console: http://h/console/', 'x: y'])).toBe(
      'asset-store ready: http://h/ (console: http://h/console/, x: y)\n',
    );
  });
});
