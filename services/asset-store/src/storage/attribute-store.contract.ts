import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { AssetAttributes, AttributeStore } from './attributes.js';

/** What a contract run needs: a store and the folder its files live in. */
export interface ContractSubject {
  store: AttributeStore;
  dir: string;
}

const full: AssetAttributes = {
  hash: 'ab'.repeat(32),
  timestamp: 1_763_700_000_123,
  mime_type: 'image/png',
  application: 'cämera',
  user: 'agent-7',
  tags: ['a', 'b c', 'ü'],
  description: 'line one\nline two',
  human_filename: 'Bild 1.png',
  human_path: '/ferien/2026',
  is_trashed: true,
  is_corrupted: false,
};

/**
 * The behaviour every AttributeStore adapter must show; each adapter that can run on this
 * machine runs it (tus-node-server's store contract suite is the model).
 */
export function attributeStoreContract(
  name: string,
  make: (dir: string) => Promise<ContractSubject>,
): void {
  describe(`attribute store contract: ${name}`, () => {
    let subject: ContractSubject;
    let file: string;
    beforeEach(async () => {
      subject = await make(fs.mkdtempSync(path.join(os.tmpdir(), 'attr-contract-')));
      file = path.join(subject.dir, `1_${'ab'.repeat(32)}.png`);
      fs.writeFileSync(file, 'content');
    });
    afterEach(() => fs.rmSync(subject.dir, { recursive: true, force: true }));

    it('reads nothing from a file that has no attributes', async () => {
      await expect(subject.store.read(file)).resolves.toBeUndefined();
    });

    it('reads back every key exactly as written, UTF-8 included', async () => {
      await subject.store.write(file, full);
      await expect(subject.store.read(file)).resolves.toEqual(full);
    });

    it('replaces the whole set, dropping keys that became absent', async () => {
      await subject.store.write(file, full);
      const smaller: AssetAttributes = {
        hash: full.hash,
        timestamp: full.timestamp,
        mime_type: full.mime_type,
        tags: [],
        is_trashed: false,
        is_corrupted: true,
      };
      await subject.store.write(file, smaller);
      await expect(subject.store.read(file)).resolves.toEqual(smaller);
    });

    it('forgets the set on remove, and removing twice is fine', async () => {
      await subject.store.write(file, full);
      await subject.store.remove(file);
      await subject.store.remove(file);
      await expect(subject.store.read(file)).resolves.toBeUndefined();
    });

    it('gives a new file its set before it is renamed to its final name', async () => {
      const staged = path.join(subject.dir, 'upload.part');
      fs.writeFileSync(staged, 'content');
      await subject.store.writeNew(staged, path.basename(file), full);
      fs.renameSync(staged, file);
      await expect(subject.store.read(file)).resolves.toEqual(full);
      expect(fs.readFileSync(file, 'utf8')).toBe('content');
    });

    it('never touches the file content', async () => {
      await subject.store.write(file, full);
      expect(fs.readFileSync(file, 'utf8')).toBe('content');
    });
  });
}
