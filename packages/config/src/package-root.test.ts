import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { packageRoot, packageVersion } from './package-root.js';

describe('packageRoot', () => {
  let root: string;
  beforeEach(() => {
    root = fs.mkdtempSync(path.join(os.tmpdir(), 'pkg-root-'));
    fs.writeFileSync(path.join(root, 'package.json'), JSON.stringify({ version: '1.2.3' }));
    fs.mkdirSync(path.join(root, 'dist', 'src'), { recursive: true });
  });
  afterEach(() => fs.rmSync(root, { recursive: true, force: true }));

  it('finds the same package folder from src/ and from dist/src/', () => {
    fs.mkdirSync(path.join(root, 'src'));
    expect(packageRoot(path.join(root, 'src'))).toBe(root);
    expect(packageRoot(path.join(root, 'dist', 'src'))).toBe(root);
  });

  it('reads the version from that folder', () => {
    expect(packageVersion(root)).toBe('1.2.3');
  });
});
