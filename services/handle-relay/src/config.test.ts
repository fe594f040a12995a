import path from 'node:path';
import { readConfig } from './config.js';

const serviceDir = path.resolve(import.meta.dirname, '..');

describe('handle-relay configuration', () => {
  it('reads the default config.yaml of the service folder, so default paths land there', () => {
    const config = readConfig([], {});
    expect(config.db).toBe(path.join(serviceDir, 'data', 'handle-relay'));
    expect(config.vapid_key_path).toBe(path.join(serviceDir, 'data', 'vapid.json'));
  });

  it('takes a config file path as the first argument', () => {
    const example = path.join(serviceDir, 'config.example.yaml');
    const config = readConfig([example, '--bind=127.0.0.1:9091'], {});
    expect(config.bind).toBe('127.0.0.1:9091');
  });

  it("ignores the CLI's own HANDLE_RELAY_URL and HANDLE_RELAY_KEY_FILE, yet refuses other unknown names", () => {
    const cliShell = { HANDLE_RELAY_URL: 'http://relay.example', HANDLE_RELAY_KEY_FILE: 'me.json' };
    expect(readConfig([], { ...cliShell, HANDLE_RELAY_BIND: '127.0.0.1:9092' }).bind).toBe(
      '127.0.0.1:9092',
    );
    expect(() => readConfig([], { ...cliShell, HANDLE_RELAY_URLS: 'x' })).toThrow(
      'HANDLE_RELAY_URLS: unknown setting',
    );
  });
});

describe('handle-relay fan-out setting', () => {
  it('defaults to LISTEN/NOTIFY, takes NATS for a server database, refuses it for an embedded one', () => {
    expect(readConfig([], {}).pubsub).toBe('postgres');
    const nats = readConfig([], {
      HANDLE_RELAY_DB: 'postgres://relay@db/relay',
      HANDLE_RELAY_PUBSUB: 'nats',
      HANDLE_RELAY_NATS_URL: 'nats://nats:4222',
    });
    expect([nats.pubsub, nats.nats_url]).toEqual(['nats', 'nats://nats:4222']);
    expect(() => readConfig([], { HANDLE_RELAY_PUBSUB: 'nats' })).toThrow(
      'pubsub: nats needs a postgres:// db',
    );
    expect(() => readConfig([], { HANDLE_RELAY_PUBSUB: 'redis' })).toThrow('pubsub');
  });
});
