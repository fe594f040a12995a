import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { loadOrCreateVapidKeys } from './vapid-keys.js';

describe('VAPID key pair', () => {
  let dir: string;
  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'vapid-'));
  });
  afterEach(() => {
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('is created on first run with its folders, mode 0600, and reused afterwards', () => {
    const file = path.join(dir, 'nested', 'deeper', 'vapid.json');
    const first = loadOrCreateVapidKeys(file);
    expect(fs.statSync(file).mode & 0o777).toBe(0o600);
    expect(Buffer.from(first.publicKey, 'base64url')).toHaveLength(65);
    expect(Buffer.from(first.publicKey, 'base64url')[0]).toBe(4);
    expect(first.publicKey).not.toMatch(/[=+/]/);
    expect(loadOrCreateVapidKeys(file)).toEqual(first);
    expect(fs.readdirSync(path.dirname(file))).toEqual(['vapid.json']);
  });

  it('refuses a file that holds no key pair', () => {
    const file = path.join(dir, 'vapid.json');
    fs.writeFileSync(file, '{"publicKey":"x"}');
    expect(() => loadOrCreateVapidKeys(file)).toThrow(
      `${file} does not hold a VAPID key pair ({publicKey, privateKey})`,
    );
  });
});
