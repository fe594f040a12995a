import path from 'node:path';
import { readConfig } from './config.js';
import { s3SettingsFrom } from './storage/s3/s3-client.js';

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

  it('keeps resumable uploads 24 hours by default, and refuses a non-positive upload_expiry_hours', () => {
    expect(readConfig([], {}).upload_expiry_hours).toBe(24);
    expect(readConfig([], { ASSET_STORE_UPLOAD_EXPIRY_HOURS: '0.5' }).upload_expiry_hours).toBe(
      0.5,
    );
    expect(() => readConfig([], { ASSET_STORE_UPLOAD_EXPIRY_HOURS: '0' })).toThrow(
      'upload_expiry_hours',
    );
  });

  it("ignores the CLI's own ASSET_STORE_URL, _TOKEN and _STATE_FILE, yet refuses other unknown names", () => {
    const cliShell = {
      ASSET_STORE_URL: 'http://store.example',
      ASSET_STORE_TOKEN: 'secret',
      ASSET_STORE_STATE_FILE: 'uploads.json',
    };
    expect(readConfig([], { ...cliShell, ASSET_STORE_LISTEN: '127.0.0.1:9092' }).listen).toBe(
      '127.0.0.1:9092',
    );
    expect(() => readConfig([], { ...cliShell, ASSET_STORE_URLS: 'x' })).toThrow(
      'ASSET_STORE_URLS: unknown setting',
    );
  });

  it('reads the object storage keys with the contract defaults', () => {
    const config = readConfig([], {});
    expect({
      storage_backend: config.storage_backend,
      s3_bucket: config.s3_bucket,
      s3_prefix: config.s3_prefix,
      s3_endpoint: config.s3_endpoint,
      s3_region: config.s3_region,
      s3_force_path_style: config.s3_force_path_style,
      s3_watch_seconds: config.s3_watch_seconds,
    }).toEqual({
      storage_backend: 'fs',
      s3_bucket: undefined,
      s3_prefix: '',
      s3_endpoint: undefined,
      s3_region: 'us-east-1',
      s3_force_path_style: false,
      s3_watch_seconds: 60,
    });
  });

  it('refuses storage_backend s3 without an s3_bucket', () => {
    expect(() => readConfig([], { ASSET_STORE_STORAGE_BACKEND: 's3' })).toThrow(
      'invalid configuration: s3_bucket: required when storage_backend is s3',
    );
  });

  it('refuses a storage_backend other than fs and s3', () => {
    expect(() => readConfig([], { ASSET_STORE_STORAGE_BACKEND: 'gcs' })).toThrow('storage_backend');
  });

  it('takes the S3 settings from the environment', () => {
    const config = readConfig([], {
      ASSET_STORE_STORAGE_BACKEND: 's3',
      ASSET_STORE_S3_BUCKET: 'assets',
      ASSET_STORE_S3_PREFIX: 'can/',
      ASSET_STORE_S3_ENDPOINT: 'http://127.0.0.1:7480',
      ASSET_STORE_S3_FORCE_PATH_STYLE: 'true',
      ASSET_STORE_S3_TIMEOUT_SECONDS: '2.5',
    });
    expect(s3SettingsFrom(config)).toEqual({
      bucket: 'assets',
      prefix: 'can/',
      endpoint: 'http://127.0.0.1:7480',
      region: 'us-east-1',
      forcePathStyle: true,
      timeoutMs: 2500,
    });
  });
});
