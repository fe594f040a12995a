import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { PreviousUpload } from 'tus-js-client';
import { CLI_ENV } from './cli-env.js';

/** tus-js-client's URL storage interface (not exported by its typings). */
export interface UrlStorage {
  findAllUploads(): Promise<PreviousUpload[]>;
  findUploadsByFingerprint(fingerprint: string): Promise<PreviousUpload[]>;
  removeUpload(urlStorageKey: string): Promise<void>;
  addUpload(fingerprint: string, upload: PreviousUpload): Promise<string>;
}

/** The default state file: `$XDG_STATE_HOME/asset-store/uploads.json` (or `~/.local/state`). */
export function defaultStateFile(env: NodeJS.ProcessEnv): string {
  const explicit = env[CLI_ENV.stateFile];
  if (explicit) return explicit;
  const base = env.XDG_STATE_HOME || path.join(os.homedir(), '.local', 'state');
  return path.join(base, 'asset-store', 'uploads.json');
}

/**
 * Unfinished tus uploads by file fingerprint, in one small JSON file, so a rerun resumes
 * them. Hand-written rather than tus-js-client's FileUrlStorage: that one is missing from
 * its typings and its file lock gives up when several uploads of one run write at once;
 * here writes are queued in-process and land by rename, so a kill never leaves half a file.
 */
export class UploadStateFile implements UrlStorage {
  #queue: Promise<unknown> = Promise.resolve();

  constructor(readonly file: string) {}

  async findAllUploads(): Promise<PreviousUpload[]> {
    return this.#find('tus::');
  }

  async findUploadsByFingerprint(fingerprint: string): Promise<PreviousUpload[]> {
    return this.#find(`tus::${fingerprint}::`);
  }

  removeUpload(urlStorageKey: string): Promise<void> {
    return this.#update((data) => {
      delete data[urlStorageKey];
    });
  }

  async addUpload(fingerprint: string, upload: PreviousUpload): Promise<string> {
    const key = `tus::${fingerprint}::${Date.now().toString(36)}${Math.random().toString(36).slice(2, 8)}`;
    await this.#update((data) => {
      data[key] = { ...upload, urlStorageKey: key };
    });
    return key;
  }

  async #find(prefix: string): Promise<PreviousUpload[]> {
    const data = await this.#read();
    return Object.entries(data)
      .filter(([key]) => key.startsWith(prefix))
      .map(([key, value]) => ({ ...value, urlStorageKey: key }));
  }

  async #read(): Promise<Record<string, PreviousUpload>> {
    try {
      const parsed = JSON.parse(await fs.readFile(this.file, 'utf8')) as unknown;
      return parsed && typeof parsed === 'object' ? (parsed as Record<string, PreviousUpload>) : {};
    } catch {
      // Absent or unreadable: no upload to resume, which only costs a fresh start.
      return {};
    }
  }

  #update(change: (data: Record<string, PreviousUpload>) => void): Promise<void> {
    const next = this.#queue.then(async () => {
      const data = await this.#read();
      change(data);
      await fs.mkdir(path.dirname(this.file), { recursive: true });
      const tmp = `${this.file}.${process.pid}.tmp`;
      await fs.writeFile(tmp, JSON.stringify(data, null, 2), { mode: 0o600 });
      await fs.rename(tmp, this.file);
    });
    this.#queue = next.catch(() => undefined);
    return next;
  }
}
