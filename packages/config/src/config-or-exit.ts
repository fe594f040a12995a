import { ConfigError } from './load-config.js';

/**
 * The configuration `read` returns, or, when it is invalid, one line `<service>: <why>` on
 * stderr and exit code 2 (the contract's start-up rule); any other error is thrown on.
 */
export function configOrExit<T>(service: string, read: () => T): T {
  try {
    return read();
  } catch (err) {
    if (!(err instanceof ConfigError)) throw err;
    process.stderr.write(`${service}: ${err.message}\n`);
    process.exit(2);
  }
}
