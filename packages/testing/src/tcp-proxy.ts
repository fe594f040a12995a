import net from 'node:net';

/**
 * A TCP proxy a test can cut and restore, to play a database outage without stopping the
 * shared server: `cut()` drops every connection and refuses new ones until `restore()`.
 */
export class TcpProxy {
  readonly #sockets = new Set<net.Socket>();
  #server: net.Server | undefined;
  #port = 0;

  private constructor(
    readonly targetHost: string,
    readonly targetPort: number,
  ) {}

  /** Starts a proxy to `host:port` on a free local port. */
  static async start(host: string, port: number): Promise<TcpProxy> {
    const proxy = new TcpProxy(host, port);
    await proxy.restore();
    return proxy;
  }

  /** The local port clients connect to (kept across cut and restore). */
  get port(): number {
    return this.#port;
  }

  /** `url` with its host and port replaced by the proxy's. */
  rewrite(url: string): string {
    const u = new URL(url);
    u.hostname = '127.0.0.1';
    u.port = String(this.#port);
    return u.toString();
  }

  /** Accepts again, on the same port. */
  async restore(): Promise<void> {
    if (this.#server) return;
    const server = net.createServer((client) => {
      const upstream = net.connect(this.targetPort, this.targetHost);
      for (const s of [client, upstream]) {
        this.#sockets.add(s);
        s.on('close', () => this.#sockets.delete(s));
        s.on('error', () => undefined);
      }
      client.pipe(upstream).pipe(client);
      client.on('close', () => upstream.destroy());
      upstream.on('close', () => client.destroy());
    });
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(this.#port, '127.0.0.1', () => resolve());
    });
    this.#port = (server.address() as net.AddressInfo).port;
    this.#server = server;
  }

  /** Drops every open connection and refuses new ones (connection refused). */
  async cut(): Promise<void> {
    const server = this.#server;
    this.#server = undefined;
    for (const s of this.#sockets) s.destroy();
    if (server) await new Promise<void>((resolve) => server.close(() => resolve()));
  }

  /** Stops for good. */
  close(): Promise<void> {
    return this.cut();
  }
}
