import type { AddressInfo } from 'node:net';

const SIGNALS = ['SIGINT', 'SIGTERM'] as const;
let held: (() => void) | undefined;

/**
 * Until `serve` takes the signals over, Ctrl-C (or SIGTERM) ends a starting service at once
 * with exit 0. Node's default would end it by the signal, which `pnpm start` reports as a
 * failure; there is nothing to drain yet, and the databases survive a stop at any point.
 */
export function exitQuietlyWhileStarting(): void {
  if (held) return;
  const exit = () => process.exit(0);
  for (const signal of SIGNALS) process.on(signal, exit);
  held = () => {
    for (const signal of SIGNALS) process.off(signal, exit);
    held = undefined;
  };
}

/** Called by `serve` once it handles the signals itself. */
export function releaseStartUpSignals(): void {
  held?.();
}

/** A setting that names where a service listens, for messages that tell how to change it. */
export interface ListenSetting {
  /** The config key (`listen`, `bind`). */
  key: string;
  /** Its environment variable (`ASSET_STORE_LISTEN`). */
  env: string;
}

/**
 * One line for a start that could not listen, naming the setting that moves it; undefined
 * for any other failure. No stack: the address in use is the whole story.
 */
export function listenFailure(
  service: string,
  err: unknown,
  setting: ListenSetting,
): string | undefined {
  const { code, address, port } = (err ?? {}) as NodeJS.ErrnoException & {
    address?: string;
    port?: number;
  };
  const where = address === undefined ? `port ${port}` : `${hostPort(address, port)}`;
  const change = `set \`${setting.key}\` in the config file, ${setting.env} or --${setting.key}`;
  if (code === 'EADDRINUSE') return `${service}: ${where} is in use: ${change}\n`;
  if (code === 'EACCES') return `${service}: ${where} is not allowed for this user: ${change}\n`;
  if (code === 'EADDRNOTAVAIL') return `${service}: ${where} is not on this machine: ${change}\n`;
  return undefined;
}

function hostPort(host: string, port: number | undefined): string {
  const h = host.includes(':') ? `[${host}]` : host;
  return port === undefined ? h : `${h}:${port}`;
}

/**
 * The base URL a person on this machine opens for a listening address: a wildcard address
 * (`0.0.0.0`, `::`) is reached through loopback.
 */
export function baseUrlOf(address: Pick<AddressInfo, 'address' | 'port'>): string {
  const host =
    address.address === '0.0.0.0'
      ? '127.0.0.1'
      : address.address === '::'
        ? '::1'
        : address.address;
  return `http://${hostPort(host, address.port)}/`;
}

/**
 * The one plain line a service prints on stderr once it serves (stdout stays the log):
 * `asset-store ready: http://127.0.0.1:8080/ (console: http://127.0.0.1:8080/console/)`.
 */
export function readyLine(service: string, base: string, places: readonly string[]): string {
  return `${service} ready: ${base}${places.length ? ` (${places.join(', ')})` : ''}\n`;
}
