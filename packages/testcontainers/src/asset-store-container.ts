import {
  AbstractStartedContainer,
  GenericContainer,
  Wait,
  type StartedTestContainer,
} from 'testcontainers';
import { buildServiceImage, localImageName, type BuildOptions } from './service-image.js';

/** The port asset-store listens on inside its image. */
export const ASSET_STORE_PORT = 8080;

/**
 * asset-store in a container, ready once `/healthz` answers 200. Without
 * `withDatabaseUrl` it keeps the embedded PostgreSQL under its storage root.
 */
export class AssetStoreContainer extends GenericContainer {
  private adminToken: string | undefined;

  /** `image`: a published or prebuilt image; `fromRepository()` builds this checkout's. */
  constructor(image: string = localImageName('asset-store')) {
    super(image);
    this.withExposedPorts(ASSET_STORE_PORT)
      // Polled from the host rather than waiting for Docker's health status: on a loaded
      // machine the image's probe (a Node process per try) can time out while the service is up.
      .withWaitStrategy(Wait.forHttp('/healthz', ASSET_STORE_PORT).forStatusCode(200))
      .withStartupTimeout(180_000);
  }

  /** A container of the image built from this repository's `services/asset-store/Dockerfile`. */
  static async fromRepository(options?: BuildOptions): Promise<AssetStoreContainer> {
    return new AssetStoreContainer(await buildServiceImage('asset-store', options));
  }

  /** Enables the admin endpoints, which then take `Authorization: Bearer <token>`. */
  withAdminToken(token: string): this {
    this.adminToken = token;
    return this.withEnvironment({ ASSET_STORE_ADMIN_TOKEN: token });
  }

  /** Uses a PostgreSQL server, e.g. `postgres://u:p@<network alias>:5432/db` on a shared network. */
  withDatabaseUrl(url: string): this {
    return this.withEnvironment({ ASSET_STORE_DATABASE_URL: url });
  }

  /** Back to the embedded PostgreSQL (the default). */
  withEmbeddedDatabase(): this {
    delete this.environment.ASSET_STORE_DATABASE_URL;
    return this;
  }

  override async start(): Promise<StartedAssetStoreContainer> {
    return new StartedAssetStoreContainer(await super.start(), this.adminToken);
  }
}

/** A running asset-store. */
export class StartedAssetStoreContainer extends AbstractStartedContainer {
  constructor(
    startedTestContainer: StartedTestContainer,
    private readonly adminToken: string | undefined,
  ) {
    super(startedTestContainer);
  }

  /** `http://<host>:<mapped port>`, without a trailing slash. */
  getBaseUrl(): string {
    return `http://${this.getHost()}:${this.getMappedPort(ASSET_STORE_PORT)}`;
  }

  /** The base of the asset endpoints: `<base URL>/api/v1/can/0`. */
  getApiUrl(): string {
    return `${this.getBaseUrl()}/api/v1/can/0`;
  }

  /** The admin token given with `withAdminToken`, if any. */
  getAdminToken(): string | undefined {
    return this.adminToken;
  }
}
