import { buildServiceImage, localImageName, type ServiceName } from '../src/service-image.js';

/**
 * The image a spec starts: with TEST_PREBUILT_IMAGES=1 the `can-services/<service>:local`
 * image built from this checkout just before (CI builds both once with `docker-compose build`,
 * which tags them so; building again here missed Docker's layer cache and took minutes),
 * else built here from the service's Dockerfile.
 */
export async function serviceImage(service: ServiceName): Promise<string> {
  return process.env.TEST_PREBUILT_IMAGES === '1'
    ? localImageName(service)
    : buildServiceImage(service);
}
