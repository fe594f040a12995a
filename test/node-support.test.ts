import fs from 'node:fs';
import path from 'node:path';
import yaml from 'js-yaml';
import { ROOT } from './compose-file.js';

/** The oldest Node line the services still run on (this machine's; see README "Node"). */
const OLDEST_NODE = 20;

/** The lowest major an `engines.node` range admits; only `>=N[.x.y]` is read. */
function lowestMajor(range: string): number | undefined {
  const match = /^>=\s*(\d+)(\.\d+){0,2}$/.exec(range.trim());
  return match ? Number(match[1]) : undefined;
}

/** Every installed version of the AWS SDK's packages and of the Smithy runtime they use. */
function awsSdkPackages(): { name: string; engines: string | undefined }[] {
  const store = path.join(ROOT, 'node_modules', '.pnpm');
  return fs
    .readdirSync(store)
    .filter((dir) => dir.startsWith('@aws-sdk+') || dir.startsWith('@smithy+'))
    .map((dir) => {
      const name = dir.slice(0, dir.indexOf('@', 1)).replace('+', '/');
      const manifest = JSON.parse(
        fs.readFileSync(path.join(store, dir, 'node_modules', name, 'package.json'), 'utf8'),
      ) as { version: string; engines?: { node?: string } };
      return { name: `${name}@${manifest.version}`, engines: manifest.engines?.node };
    });
}

describe('Node versions', () => {
  it(`every installed AWS SDK package still runs on Node ${OLDEST_NODE} (the catalog caps the SDK)`, () => {
    const packages = awsSdkPackages();
    expect(packages.length).toBeGreaterThan(10);
    const refusing = packages.filter(({ engines }) => {
      if (engines === undefined) return false;
      const major = lowestMajor(engines);
      return major === undefined || major > OLDEST_NODE;
    });
    expect(refusing).toEqual([]);
  });

  it('the workspace admits Node 20; the images run Node 24; CI tests 20, 22 and 24', () => {
    const root = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as {
      engines: { node: string };
    };
    expect(lowestMajor(root.engines.node)).toBe(OLDEST_NODE);
    for (const service of ['asset-store', 'handle-relay']) {
      const dockerfile = fs.readFileSync(
        path.join(ROOT, 'services', service, 'Dockerfile'),
        'utf8',
      );
      const bases = [...dockerfile.matchAll(/^FROM (\S+)/gm)].map((m) => m[1]);
      expect(bases).toEqual(['node:24-bookworm-slim', 'node:24-bookworm-slim']);
    }
    const ci = yaml.load(fs.readFileSync(path.join(ROOT, '.github/workflows/ci.yml'), 'utf8')) as {
      jobs: { test: { strategy: { matrix: { node: number[] } } } };
    };
    expect(ci.jobs.test.strategy.matrix.node).toEqual([20, 22, 24]);
  });
});
