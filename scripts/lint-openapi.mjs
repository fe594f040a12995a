// `pnpm lint:openapi` (part of `pnpm lint`): writes each service's OpenAPI document from its
// code (src/write-openapi.ts, nothing started) to services/<name>/dist/openapi.json and lints
// them with Redocly's recommended rules. The one accepted finding is in .redocly.lint-ignore.yaml.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

const root = path.resolve(import.meta.dirname, '..');
const services = ['asset-store', 'handle-relay'];
const env = {
  ...process.env,
  REDOCLY_TELEMETRY: 'off',
  REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true',
};
try {
  const files = services.map((service) => {
    const file = `services/${service}/dist/openapi.json`;
    fs.mkdirSync(path.dirname(path.join(root, file)), { recursive: true });
    execFileSync(
      process.execPath,
      ['--conditions=source', '--import', 'tsx', `services/${service}/src/write-openapi.ts`, file],
      { cwd: root, stdio: 'inherit' },
    );
    return file;
  });
  execFileSync(
    path.join(root, 'node_modules/.bin/redocly'),
    ['lint', '--extends', 'recommended', '--max-problems', '1000', ...files],
    { cwd: root, stdio: 'inherit', env },
  );
} catch (err) {
  // The child already printed why; exit with its code rather than a stack.
  process.exitCode = typeof err.status === 'number' ? err.status : 1;
}
