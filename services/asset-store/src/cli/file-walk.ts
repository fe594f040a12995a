import fs from 'node:fs/promises';
import path from 'node:path';
import { UsageError } from './cli-errors.js';

/** One file an upload will send. */
export interface PlannedFile {
  /** The path as the user named it (argument joined with the path below a folder). */
  path: string;
  size: number;
  /** The file's own name, sent as `human_file_name`. */
  name: string;
  /** The folder it was found under, relative to the named folder's parent, `/`-separated. */
  folder?: string;
}

/**
 * Every regular file under the named paths: files as given, folders recursively in name
 * order. Symbolic links to files are followed, links to folders are not (no cycles).
 */
export async function planFiles(paths: readonly string[]): Promise<PlannedFile[]> {
  const out: PlannedFile[] = [];
  for (const given of paths) {
    let stat;
    try {
      stat = await fs.stat(given);
    } catch {
      throw new UsageError(`no such file or folder: ${path.resolve(given)}`);
    }
    if (stat.isDirectory()) {
      const top = path.basename(path.resolve(given));
      await walk(given, top, out);
    } else if (stat.isFile()) {
      out.push({ path: given, size: stat.size, name: path.basename(given) });
    } else {
      throw new UsageError(`not a file or folder: ${path.resolve(given)}`);
    }
  }
  return out;
}

async function walk(dir: string, logical: string, out: PlannedFile[]): Promise<void> {
  const entries = await fs.readdir(dir, { withFileTypes: true });
  entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  for (const entry of entries) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) {
      await walk(full, `${logical}/${entry.name}`, out);
      continue;
    }
    if (!entry.isFile() && !entry.isSymbolicLink()) continue;
    const stat = await fs.stat(full).catch(() => undefined);
    if (!stat?.isFile()) continue;
    out.push({ path: full, size: stat.size, name: entry.name, folder: logical });
  }
}
