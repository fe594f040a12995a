import path from 'node:path';
import { readConfig } from './config.js';

const serviceDir = path.resolve(import.meta.dirname, '..');

describe('asset-store configuration', () => {
  it('reads the default config.yaml of the service folder, so default paths land there', () => {
    const config = readConfig([], {});
    expect(config.storage_root).toBe(path.join(serviceDir, 'data', 'assets'));
  });

  it('takes a config file path as the first argument', () => {
    const example = path.join(serviceDir, 'config.example.yaml');
    const config = readConfig([example, '--listen=127.0.0.1:9090'], {});
    expect(config.listen).toBe('127.0.0.1:9090');
  });

  it('turns the console on by default, off with console: false, and refuses a non-boolean', () => {
    expect(readConfig([], {}).console).toBe(true);
    expect(readConfig([], { ASSET_STORE_CONSOLE: 'false' }).console).toBe(false);
    expect(() => readConfig([], { ASSET_STORE_CONSOLE: 'maybe' })).toThrow('console');
  });

  it('refuses a verify_interval_hours that is not a whole number of hours', () => {
    expect(() => readConfig([], { ASSET_STORE_VERIFY_INTERVAL_HOURS: '1.5' })).toThrow(
      'verify_interval_hours',
    );
  });
});
