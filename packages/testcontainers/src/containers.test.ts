import fs from 'node:fs';
import path from 'node:path';
import { AssetStoreContainer } from './asset-store-container.js';
import { HandleRelayContainer } from './handle-relay-container.js';
import { localImageName, repositoryRoot } from './service-image.js';

// Subclasses that show the environment a container would start with (no Docker needed).
class AssetStoreProbe extends AssetStoreContainer {
  env(): Record<string, string> {
    return { ...this.environment };
  }
}
class HandleRelayProbe extends HandleRelayContainer {
  env(): Record<string, string> {
    return { ...this.environment };
  }
}

describe('the service containers', () => {
  it('find the Dockerfiles of the checkout they belong to', () => {
    const root = repositoryRoot();
    for (const service of ['asset-store', 'handle-relay']) {
      expect(fs.existsSync(path.join(root, 'services', service, 'Dockerfile'))).toBe(true);
    }
    expect(localImageName('asset-store')).toBe('can-services/asset-store:local');
  });

  it('configure asset-store only through its own environment variables', () => {
    const c = new AssetStoreProbe().withAdminToken('t').withDatabaseUrl('postgres://db/x');
    expect(c.env()).toEqual({
      ASSET_STORE_ADMIN_TOKEN: 't',
      ASSET_STORE_DATABASE_URL: 'postgres://db/x',
    });
    expect(c.withEmbeddedDatabase().env()).toEqual({ ASSET_STORE_ADMIN_TOKEN: 't' });
  });

  it('configure handle-relay only through its own environment variables', () => {
    const c = new HandleRelayProbe()
      .withServerName('relay.test')
      .withDatabaseUrl('postgres://db/x')
      .withRateLimitPerMinute(0);
    expect(c.env()).toEqual({
      HANDLE_RELAY_SERVER: 'relay.test',
      HANDLE_RELAY_DB: 'postgres://db/x',
      HANDLE_RELAY_RATE_LIMIT_PER_MINUTE: '0',
    });
    expect(c.withEmbeddedDatabase().env()).not.toHaveProperty('HANDLE_RELAY_DB');
  });
});
