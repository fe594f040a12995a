import fs from 'node:fs';
import path from 'node:path';

/**
 * The nearest folder at or above `fromDir` that holds a package.json: a service's own folder
 * whether its code runs from `src/` (tsx, Jest) or from `dist/src/` (built).
 */
export function packageRoot(fromDir: string): string {
  let dir = path.resolve(fromDir);
  for (;;) {
    if (fs.existsSync(path.join(dir, 'package.json'))) return dir;
    const parent = path.dirname(dir);
    if (parent === dir) throw new Error(`no package.json at or above ${fromDir}`);
    dir = parent;
  }
}

/** The `version` of the package.json in `root`. */
export function packageVersion(root: string): string {
  const pkg = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8')) as {
    version?: unknown;
  };
  return typeof pkg.version === 'string' ? pkg.version : '0.0.0';
}
