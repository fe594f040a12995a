import fs from 'node:fs';
import path from 'node:path';
import { GenericContainer } from 'testcontainers';

/** The services this repository ships as images. */
export type ServiceName = 'asset-store' | 'handle-relay';

/** How to build a service's image from this repository's Dockerfile. */
export interface BuildOptions {
  /** The name to tag the image with; default `can-services/<service>:local`. */
  image?: string;
  /** The build context, a checkout of this repository; default the one holding this package. */
  context?: string;
  /** Build arguments (`docker build --build-arg`). */
  buildArgs?: Record<string, string>;
}

/** The image name a service gets when built here without a name of its own. */
export function localImageName(service: ServiceName): string {
  return `can-services/${service}:local`;
}

/** The checkout this package belongs to: the nearest folder above it with the services' Dockerfiles. */
export function repositoryRoot(fromDir: string = import.meta.dirname): string {
  for (let dir = path.resolve(fromDir); ; dir = path.dirname(dir)) {
    if (fs.existsSync(path.join(dir, 'services', 'asset-store', 'Dockerfile'))) return dir;
    if (path.dirname(dir) === dir) {
      throw new Error(`no checkout of can-services (services/*/Dockerfile) at or above ${fromDir}`);
    }
  }
}

/**
 * Builds `services/<service>/Dockerfile` with the repository as context and returns the image
 * name. The image is kept after the run, so Docker's layer cache makes the next build quick.
 */
export async function buildServiceImage(
  service: ServiceName,
  options: BuildOptions = {},
): Promise<string> {
  const image = options.image ?? localImageName(service);
  await GenericContainer.fromDockerfile(
    options.context ?? repositoryRoot(),
    `services/${service}/Dockerfile`,
  )
    .withBuildArgs(options.buildArgs ?? {})
    .build(image, { deleteOnExit: false });
  return image;
}
