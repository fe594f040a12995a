import path from 'node:path';
import { loadConfig } from '../packages/config/src/index.js';
import { configSchema as assetStoreSchema } from '../services/asset-store/src/config.js';
import { configSchema as handleRelaySchema } from '../services/handle-relay/src/config.js';

const ROOT = path.resolve(import.meta.dirname, '..');

/** Resolves the listed keys the way loadConfig does for a file in `dir`. */
function resolved(
  values: Record<string, unknown>,
  dir: string,
  pathKeys: readonly string[],
): Record<string, unknown> {
  const out = { ...values };
  for (const key of pathKeys) {
    if (typeof out[key] === 'string') out[key] = path.resolve(dir, out[key]);
  }
  return out;
}

describe('the example config files', () => {
  it('asset-store: loads cleanly and shows exactly the defaults', () => {
    const dir = path.join(ROOT, 'services/asset-store');
    const config = loadConfig(assetStoreSchema, {
      file: path.join(dir, 'config.example.yaml'),
      prefix: 'ASSET_STORE',
      pathKeys: ['storage_root'],
    });
    expect(config).toEqual(resolved(assetStoreSchema.parse({}), dir, ['storage_root']));
  });

  it('handle-relay: loads cleanly and shows exactly the defaults', () => {
    const dir = path.join(ROOT, 'services/handle-relay');
    const pathKeys = ['db', 'vapid_key_path', 'log_key_path'];
    const config = loadConfig(handleRelaySchema, {
      file: path.join(dir, 'config.example.yaml'),
      prefix: 'HANDLE_RELAY',
      pathKeys,
    });
    expect(config).toEqual(resolved(handleRelaySchema.parse({}), dir, pathKeys));
  });
});
