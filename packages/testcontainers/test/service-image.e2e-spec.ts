import { execFileSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { AssetStoreContainer } from '../src/asset-store-container.js';
import { buildServiceImage } from '../src/service-image.js';

// The build path of `fromRepository()` on a checkout of one small Dockerfile: the service
// specs may start images built once beforehand (test/prebuilt.ts), and this keeps the path
// that builds them under test without a second full build.
describe('building a service image', () => {
  let context: string;
  const image = `can-services/build-probe:${randomUUID().slice(0, 8)}`;
  beforeAll(() => {
    context = fs.mkdtempSync(path.join(os.tmpdir(), 'service-image-'));
    for (const service of ['asset-store', 'handle-relay']) {
      fs.mkdirSync(path.join(context, 'services', service), { recursive: true });
      fs.writeFileSync(
        path.join(context, 'services', service, 'Dockerfile'),
        `FROM node:24-bookworm-slim\nARG PROBE\nLABEL service=${service} probe=$PROBE\n`,
      );
    }
  });
  afterAll(() => {
    fs.rmSync(context, { recursive: true, force: true });
    execFileSync('docker', ['image', 'rm', '--force', image], { stdio: 'ignore' });
  });

  /** The image's labels but testcontainers' own (`org.testcontainers…`). */
  const labels = (name: string) =>
    Object.fromEntries(
      Object.entries(
        JSON.parse(
          execFileSync(
            'docker',
            ['image', 'inspect', '--format', '{{json .Config.Labels}}', name],
            {
              encoding: 'utf8',
            },
          ),
        ) as Record<string, string>,
      ).filter(([key]) => !key.startsWith('org.testcontainers')),
    );

  it('builds services/<service>/Dockerfile of the given checkout, with its build arguments, under the name asked for', async () => {
    const probe = randomUUID();
    expect(
      await buildServiceImage('handle-relay', { context, image, buildArgs: { PROBE: probe } }),
    ).toBe(image);
    expect(labels(image)).toEqual({ service: 'handle-relay', probe });
  });

  it('gives fromRepository() a container of the image it built', async () => {
    const container = await AssetStoreContainer.fromRepository({ context, image });
    expect(container).toBeInstanceOf(AssetStoreContainer);
    expect(labels(image)).toEqual({ service: 'asset-store', probe: '' });
  });
});
