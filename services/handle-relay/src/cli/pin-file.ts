import fs from 'node:fs/promises';
import type { TreeHead } from '../client/http-client.js';
import type { Pin, PinStore } from '../client/trust.js';

/**
 * The pin file: `{"pins": {fqhn: pin}, "head": kept head, "own_keys": [public keys this
 * user's key files held], "monitor_size": entries the monitor has read, "watched": the
 * last link the monitor checked per watched handle}`. No secrets.
 */
export interface PinFile {
  pins: Record<string, Pin>;
  head?: TreeHead;
  own_keys?: string[];
  monitor_size?: number;
  watched?: Record<string, ChainTip>;
}

/** A watched chain's last checked link: what the next link must follow and be signed by. */
export interface ChainTip {
  seq: number;
  /** `lineHash` of the link's line (the next link's `prev`). */
  hash: string;
  /** The key in force after it (the next rotation's `sig` key). */
  key: string;
}

/** The pin file as the client library's `PinStore`; each write replaces the file whole (a rename). */
export class FilePinStore implements PinStore {
  constructor(private readonly file: string) {}

  async #read(): Promise<PinFile> {
    try {
      return JSON.parse(await fs.readFile(this.file, 'utf8')) as PinFile;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return { pins: {} };
      throw err;
    }
  }

  async update(change: (content: PinFile) => void): Promise<PinFile> {
    const content = await this.#read();
    change(content);
    await this.#write(content);
    return content;
  }

  async read(): Promise<PinFile> {
    return this.#read();
  }

  async #write(content: PinFile): Promise<void> {
    const temp = `${this.file}.${process.pid}.tmp`;
    await fs.writeFile(temp, `${JSON.stringify(content, null, 2)}\n`);
    await fs.rename(temp, this.file);
  }

  async getPin(fqhn: string) {
    return (await this.#read()).pins[fqhn];
  }
  async setPin(fqhn: string, pin: Pin) {
    const content = await this.#read();
    content.pins[fqhn] = pin;
    await this.#write(content);
  }
  async getHead() {
    return (await this.#read()).head;
  }
  async setHead(head: TreeHead) {
    const content = await this.#read();
    content.head = head;
    await this.#write(content);
  }
}
