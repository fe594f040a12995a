export {
  envFilesOf,
  ConfigError,
  configSource,
  listenAddress,
  loadConfig,
  splitListen,
} from './load-config.js';
export type { LoadConfigOptions } from './load-config.js';
export { configOrExit } from './config-or-exit.js';
export { packageRoot, packageVersion } from './package-root.js';
export { trustProxySetting } from './trust-proxy.js';
export type { TrustProxy } from './trust-proxy.js';
