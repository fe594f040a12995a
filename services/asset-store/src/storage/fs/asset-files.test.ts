import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { AssetFiles } from './asset-files.js';
import type { AssetStorage } from './asset-storage.js';
import type { AssetAttributes, AttributeStore } from '../attributes.js';
import { FileIdentities } from './file-identities.js';
import { storageLayout } from '../layout.js';
import { OwnRenames } from './own-renames.js';

const attrs: AssetAttributes = {
  hash: 'a'.repeat(64),
  timestamp: 1,
  mime_type: 'text/plain',
  tags: [],
  is_trashed: false,
  is_corrupted: false,
};

/** Attributes kept in memory by final name, so the test sees what was written and removed. */
class MemoryAttributes implements AttributeStore {
  readonly byName = new Map<string, AssetAttributes>();
  failWrites = false;
  read = (file: string) => Promise.resolve(this.byName.get(path.basename(file)));
  write = (file: string, a: AssetAttributes) => this.writeNew(file, path.basename(file), a);
  writeNew(_file: string, finalName: string, a: AssetAttributes): Promise<void> {
    if (this.failWrites) return Promise.reject(new Error('refused'));
    this.byName.set(finalName, a);
    return Promise.resolve();
  }
  remove(file: string): Promise<void> {
    this.byName.delete(path.basename(file));
    return Promise.resolve();
  }
}

let root: string;
let storage: AssetStorage;
let attributes: MemoryAttributes;
beforeEach(() => {
  root = fs.mkdtempSync(path.join(os.tmpdir(), 'asset-files-'));
  attributes = new MemoryAttributes();
  storage = { layout: storageLayout(root), attributes, identities: new FileIdentities() };
  fs.mkdirSync(storage.layout.tmp, { recursive: true });
});
afterEach(() => fs.rmSync(root, { recursive: true, force: true }));

function staged(content: string): string {
  const file = path.join(storage.layout.tmp, `${Math.random()}.part`);
  fs.writeFileSync(file, content);
  return file;
}

describe('AssetFiles', () => {
  it('never replaces nor removes a file of the same name that another ingest placed', async () => {
    const files = new AssetFiles(storage);
    const theirs = files.place(staged('theirs'), 'same.txt', attrs);
    await theirs.durable;
    const tmp = staged('mine');
    const mine = files.place(tmp, 'same.txt', attrs);
    await expect(mine.durable).rejects.toMatchObject({ status: 409, code: 'conflict' });
    await mine.undo();
    expect(fs.readFileSync(path.join(root, 'same.txt'), 'utf8')).toBe('theirs');
    expect(attributes.byName.has('same.txt')).toBe(true);
    expect(fs.existsSync(tmp)).toBe(false);
  });

  it('puts a staged file under its final name with its attributes, and announces the rename', async () => {
    const renames = new OwnRenames();
    const tmp = staged('hello');
    const placement = new AssetFiles(storage, renames).place(tmp, 'final.txt', attrs);
    await placement.durable;
    expect(placement.finalPath).toBe(path.join(root, 'final.txt'));
    expect(fs.readFileSync(placement.finalPath, 'utf8')).toBe('hello');
    expect(fs.existsSync(tmp)).toBe(false);
    expect(attributes.byName.get('final.txt')).toEqual(attrs);
    expect(renames.consume('final.txt')).toBe(true);
  });

  it('undoes a finished placement: no file and no attributes are left', async () => {
    const placement = new AssetFiles(storage).place(staged('x'), 'gone.txt', attrs);
    await placement.durable;
    await placement.undo();
    expect(fs.existsSync(placement.finalPath)).toBe(false);
    expect(attributes.byName.size).toBe(0);
  });

  it('undoes a placement that failed before the rename by removing the staged file', async () => {
    attributes.failWrites = true;
    const tmp = staged('x');
    const placement = new AssetFiles(storage).place(tmp, 'never.txt', attrs);
    await expect(placement.durable).rejects.toThrow('refused');
    await placement.undo();
    expect(fs.existsSync(tmp)).toBe(false);
    expect(fs.existsSync(placement.finalPath)).toBe(false);
  });
});
