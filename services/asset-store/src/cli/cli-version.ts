import fs from 'node:fs';
import path from 'node:path';

/**
 * The package version, read from the nearest asset-store package.json above this file
 * (from src/cli or dist/src/cli). Not @svc/config's reader: it would load the server's
 * config stack (zod, YAML) into every CLI start.
 */
export function cliVersion(): string {
  for (let dir = import.meta.dirname; ; dir = path.dirname(dir)) {
    try {
      const pkg = JSON.parse(fs.readFileSync(path.join(dir, 'package.json'), 'utf8')) as {
        name?: string;
        version?: string;
      };
      if (pkg.name === 'asset-store' && pkg.version) return pkg.version;
    } catch {
      // No package.json here: keep going up.
    }
    if (path.dirname(dir) === dir) return 'unknown';
  }
}
