import { packageRoot, packageVersion } from '@svc/config';

/** This service's folder (its package.json and default config.yaml), from src/ or dist/src/. */
export const SERVICE_DIR = packageRoot(import.meta.dirname);

/** The service version from its package.json. */
export function readVersion(): string {
  return packageVersion(SERVICE_DIR);
}
