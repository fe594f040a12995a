import fs from 'node:fs';
import path from 'node:path';

/** The service version, read from its package.json (works from src/ and dist/src/). */
export function readVersion(): string {
  let dir = import.meta.dirname;
  for (let i = 0; i < 4; i++) {
    const file = path.join(dir, 'package.json');
    if (fs.existsSync(file)) {
      return (JSON.parse(fs.readFileSync(file, 'utf8')) as { version: string }).version;
    }
    dir = path.dirname(dir);
  }
  return '0.0.0';
}
