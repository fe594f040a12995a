import { TcpProxy } from './tcp-proxy.js';
import { testDatabaseMode } from './test-database.js';

/** What a test file gets from `useDatabaseOutage`: the app built behind a proxy it can cut. */
export interface DatabaseOutage<T> {
  /** `describe` on a database server; skipped on the embedded one, which cannot go away. */
  describeOnServer: jest.Describe;
  /** The app under test, built in `beforeAll`. */
  app(): T;
  /** The proxy between the app and the test database: `cut()`, then `restore()`. */
  proxy(): TcpProxy;
}

/**
 * Builds a test file's app against the test database through a TCP proxy the test can cut,
 * and closes both afterwards. Both services' outage tests use it.
 */
export function useDatabaseOutage<T extends { close(): Promise<void> }>(
  build: (proxy: TcpProxy) => Promise<T>,
  timeoutMs = 60_000,
): DatabaseOutage<T> {
  const onServer = testDatabaseMode() === 'postgres';
  let app: T | undefined;
  let proxy: TcpProxy | undefined;
  beforeAll(async () => {
    if (!onServer) return;
    const url = new URL(process.env.TEST_DATABASE_URL!);
    proxy = await TcpProxy.start(url.hostname, Number(url.port || 5432));
    app = await build(proxy);
  }, timeoutMs);
  afterAll(async () => {
    if (!proxy) return;
    await proxy.restore();
    await app?.close();
    await proxy.close();
  }, timeoutMs);
  return {
    // Skipped on the embedded database: it runs in-process and cannot be cut off.
    describeOnServer: onServer ? describe : describe.skip,
    app: () => app!,
    proxy: () => proxy!,
  };
}
