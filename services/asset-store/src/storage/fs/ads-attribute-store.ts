import fs from 'node:fs/promises';
import {
  ATTRIBUTE_KEYS,
  decodeOrUndefined,
  encodeAttributes,
  readIfExists,
  type AssetAttributes,
  type AttributeKey,
  type AttributeStore,
} from '../attributes.js';

/** Windows alternate data streams `<file>:can.<key>`; only used on win32. */
export class AlternateStreamAttributeStore implements AttributeStore {
  async read(file: string): Promise<AssetAttributes | undefined> {
    const values = new Map<AttributeKey, string>();
    for (const key of ATTRIBUTE_KEYS) {
      const value = await readIfExists(`${file}:can.${key}`);
      if (value !== undefined) values.set(key, value);
    }
    if (!values.has('hash')) return undefined;
    return decodeOrUndefined((key) => values.get(key));
  }

  async write(file: string, attrs: AssetAttributes): Promise<void> {
    const encoded = encodeAttributes(attrs);
    for (const key of ATTRIBUTE_KEYS) {
      const value = encoded.get(key);
      if (value === undefined) await fs.rm(`${file}:can.${key}`, { force: true });
      else await writeStream(`${file}:can.${key}`, value);
    }
  }

  async writeNew(file: string, _name: string, attrs: AssetAttributes): Promise<void> {
    for (const [key, value] of encodeAttributes(attrs)) {
      await writeStream(`${file}:can.${key}`, value);
    }
  }

  async remove(file: string): Promise<void> {
    for (const key of ATTRIBUTE_KEYS) await fs.rm(`${file}:can.${key}`, { force: true });
  }
}

/**
 * Each stream is flushed through its own handle: the ingest's flush of the main stream is
 * not counted on for the others.
 */
async function writeStream(stream: string, value: string): Promise<void> {
  const handle = await fs.open(stream, 'w');
  try {
    await handle.writeFile(value, 'utf8');
    await handle.sync();
  } finally {
    await handle.close();
  }
}
