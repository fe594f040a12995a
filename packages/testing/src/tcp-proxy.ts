import net from 'node:net';

/** One client connection and, while forwarding, its connection to the target. */
interface Pair {
  client: net.Socket;
  upstream: net.Socket | undefined;
}

/**
 * A TCP proxy a test can cut and restore, to play a database outage without stopping the
 * shared server: `cut()` drops every connection and refuses new ones until `restore()`;
 * `silence()` plays a peer that hangs: connections are accepted and held, and nothing is
 * ever answered on them, until `restore()`.
 */
export class TcpProxy {
  readonly #pairs = new Set<Pair>();
  #server: net.Server | undefined;
  #port = 0;
  #silent = false;

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

  /** Forwards again (accepting, on the same port); held connections are dropped. */
  async restore(): Promise<void> {
    if (this.#silent) {
      this.#silent = false;
      for (const pair of this.#pairs) if (!pair.upstream) pair.client.destroy();
    }
    if (this.#server) return;
    const server = net.createServer((client) => this.#accept(client));
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(this.#port, '127.0.0.1', () => resolve());
    });
    this.#port = (server.address() as net.AddressInfo).port;
    this.#server = server;
  }

  #accept(client: net.Socket): void {
    const pair: Pair = { client, upstream: undefined };
    this.#pairs.add(pair);
    client.on('error', () => undefined);
    client.on('close', () => {
      this.#pairs.delete(pair);
      pair.upstream?.destroy();
    });
    if (this.#silent) {
      client.resume();
      return;
    }
    const upstream = net.connect(this.targetPort, this.targetHost);
    pair.upstream = upstream;
    upstream.on('error', () => undefined);
    upstream.on('close', () => {
      // Silenced meanwhile: the client stays connected and hears nothing more.
      if (pair.upstream === upstream) client.destroy();
    });
    client.pipe(upstream).pipe(client);
  }

  /**
   * A peer that hangs: every open connection goes quiet (its target connection closed, the
   * client's kept open with nothing more sent on it), and new ones are accepted and held.
   */
  silence(): void {
    this.#silent = true;
    for (const pair of this.#pairs) {
      const upstream = pair.upstream;
      if (!upstream) continue;
      pair.upstream = undefined;
      pair.client.unpipe(upstream);
      upstream.unpipe(pair.client);
      upstream.destroy();
      // Whatever the client still sends is read and dropped, as a hung peer's kernel would.
      pair.client.resume();
    }
  }

  /** Drops every open connection and refuses new ones (connection refused). */
  async cut(): Promise<void> {
    const server = this.#server;
    this.#server = undefined;
    this.#silent = false;
    for (const pair of this.#pairs) {
      pair.client.destroy();
      pair.upstream?.destroy();
    }
    if (server) await new Promise<void>((resolve) => server.close(() => resolve()));
  }

  /** Stops for good. */
  close(): Promise<void> {
    return this.cut();
  }
}
