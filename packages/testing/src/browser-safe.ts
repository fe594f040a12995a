import fs from 'node:fs';
import path from 'node:path';

/** Every source file `entry` reaches through relative imports (`from './x.js'`), itself included. */
export function reachableFrom(entry: string, seen = new Set<string>()): Set<string> {
  if (seen.has(entry)) return seen;
  seen.add(entry);
  const source = fs.readFileSync(entry, 'utf8');
  for (const m of source.matchAll(/from '(\.[^']+)\.js'/g)) {
    reachableFrom(path.join(path.dirname(entry), `${m[1]}.ts`), seen);
  }
  return seen;
}

/** A file's code without its comments, so a comment that names `process.` is no finding. */
export function codeOf(file: string): string {
  return fs
    .readFileSync(file, 'utf8')
    .replace(/\/\*[\s\S]*?\*\//g, '')
    .replace(/\/\/.*$/gm, '');
}

/** What a browser bundle cannot take: Node built-ins, require, Buffer, process. */
export const NODE_ONLY = /from 'node:|require\(|\bBuffer\b|\bprocess\./;
