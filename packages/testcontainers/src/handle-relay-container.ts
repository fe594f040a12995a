import {
  AbstractStartedContainer,
  GenericContainer,
  Wait,
  type StartedTestContainer,
} from 'testcontainers';
import { buildServiceImage, localImageName, type BuildOptions } from './service-image.js';

/** The port handle-relay listens on inside its image. */
export const HANDLE_RELAY_PORT = 8081;

/** The server name the relay answers to unless told otherwise (registrations must name it). */
export const DEFAULT_SERVER_NAME = 'localhost';

/**
 * handle-relay in a container, ready once `/v1/healthz` answers 200. Without
 * `withDatabaseUrl` it keeps the embedded PostgreSQL in its data volume.
 */
export class HandleRelayContainer extends GenericContainer {
  private serverName = DEFAULT_SERVER_NAME;

  /** `image`: a published or prebuilt image; `fromRepository()` builds this checkout's. */
  constructor(image: string = localImageName('handle-relay')) {
    super(image);
    this.withExposedPorts(HANDLE_RELAY_PORT)
      // Polled from the host rather than waiting for Docker's health status: on a loaded
      // machine the image's probe (a Node process per try) can time out while the service is up.
      .withWaitStrategy(Wait.forHttp('/v1/healthz', HANDLE_RELAY_PORT).forStatusCode(200))
      .withStartupTimeout(180_000);
  }

  /** A container of the image built from this repository's `services/handle-relay/Dockerfile`. */
  static async fromRepository(options?: BuildOptions): Promise<HandleRelayContainer> {
    return new HandleRelayContainer(await buildServiceImage('handle-relay', options));
  }

  /** The domain of `<handle>@<server>`, which registrations must name. */
  withServerName(name: string): this {
    this.serverName = name;
    return this.withEnvironment({ HANDLE_RELAY_SERVER: name });
  }

  /** Uses a PostgreSQL server, e.g. `postgres://u:p@<network alias>:5432/db` on a shared network. */
  withDatabaseUrl(url: string): this {
    return this.withEnvironment({ HANDLE_RELAY_DB: url });
  }

  /** Back to the embedded PostgreSQL (the default). */
  withEmbeddedDatabase(): this {
    delete this.environment.HANDLE_RELAY_DB;
    return this;
  }

  /** Sends and registrations allowed per client address and minute; `0` turns the limit off. */
  withRateLimitPerMinute(perMinute: number): this {
    return this.withEnvironment({ HANDLE_RELAY_RATE_LIMIT_PER_MINUTE: String(perMinute) });
  }

  override async start(): Promise<StartedHandleRelayContainer> {
    return new StartedHandleRelayContainer(await super.start(), this.serverName);
  }
}

/** A running handle-relay. */
export class StartedHandleRelayContainer extends AbstractStartedContainer {
  constructor(
    startedTestContainer: StartedTestContainer,
    private readonly serverName: string,
  ) {
    super(startedTestContainer);
  }

  /** `http://<host>:<mapped port>`, without a trailing slash. */
  getBaseUrl(): string {
    return `http://${this.getHost()}:${this.getMappedPort(HANDLE_RELAY_PORT)}`;
  }

  /** The server name registrations must name. */
  getServerName(): string {
    return this.serverName;
  }
}
