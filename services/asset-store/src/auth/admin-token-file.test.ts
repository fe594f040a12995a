import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { adminTokenFromFile } from './admin-token-file.js';

describe('adminTokenFromFile', () => {
  let dir: string;
  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'admin-token-file-'));
  });
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('writes one token, then every later reader (another instance) gets the same', () => {
    const file = path.join(dir, 'nested', 'admin-token');
    const first = adminTokenFromFile(file);
    expect(first).toEqual({
      token: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/) as string,
      file,
      created: true,
    });
    expect(adminTokenFromFile(file)).toEqual({ token: first.token, file, created: false });
    // Nothing but the token is left in the folder (the scratch file is gone).
    expect(fs.readdirSync(path.dirname(file))).toEqual(['admin-token']);
  });

  it('takes a token someone wrote by hand, trimmed, and refuses an empty file', () => {
    const file = path.join(dir, 'admin-token');
    fs.writeFileSync(file, '  chosen by hand \n');
    expect(adminTokenFromFile(file)).toEqual({ token: 'chosen by hand', file, created: false });
    fs.writeFileSync(file, '\n');
    expect(() => adminTokenFromFile(file)).toThrow(`admin_token_file ${file} is empty`);
  });
});
