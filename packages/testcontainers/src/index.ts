// Testcontainers modules of this repository's services, for other projects' integration tests.
export {
  ASSET_STORE_PORT,
  AssetStoreContainer,
  StartedAssetStoreContainer,
} from './asset-store-container.js';
export {
  DEFAULT_SERVER_NAME,
  HANDLE_RELAY_PORT,
  HandleRelayContainer,
  StartedHandleRelayContainer,
} from './handle-relay-container.js';
export { buildServiceImage, localImageName, repositoryRoot } from './service-image.js';
export type { BuildOptions, ServiceName } from './service-image.js';
