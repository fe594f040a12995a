import type { Logger } from 'pino';
import type { AssetStorage } from '../storage/fs/asset-storage.js';
import type { BlobStore } from '../storage/blob-store.js';
import { FsBlobStore } from '../storage/fs/fs-blob-store.js';
import type { OwnRenames } from '../storage/fs/own-renames.js';
import type { PlacementAnnouncer } from '../storage/fs/placement-notices.js';
import { s3SettingsFrom, type S3ConfigKeys } from '../storage/s3/s3-client.js';
import { S3BlobStore } from '../storage/s3/s3-blob-store.js';
import type { StagingOwner } from '../storage/s3/s3-sweep.js';

/** The configuration's choice of backend (contract: `storage_backend`, `s3_*`). */
export interface BlobStoreConfig extends S3ConfigKeys {
  storage_backend: 'fs' | 's3';
}

/** S3 credentials given instead of the AWS SDK's default chain. */
export interface S3Credentials {
  accessKeyId: string;
  secretAccessKey: string;
}

/** An opened blob store and how to let it go (the S3 client's sockets). */
export interface OpenedBlobStore {
  blobs: BlobStore;
  close(): void;
}

/**
 * The blob store the configuration names: the storage root, or the S3 bucket (created when
 * absent, its unfinished uploads aborted and staged leftovers removed, as the start logs).
 */
export async function openBlobStore(
  config: BlobStoreConfig,
  storage: AssetStorage,
  /** The service's own renames, and where the files it places are announced (file system). */
  echoes: { ownRenames: OwnRenames; placements?: PlacementAnnouncer },
  logger: Pick<Logger, 'info'>,
  s3: {
    /** This instance's presence: on S3 a start sweeps only the staging of gone instances. */
    owner?: StagingOwner;
    credentials?: S3Credentials;
  } = {},
): Promise<OpenedBlobStore> {
  if (config.storage_backend === 'fs') {
    return {
      blobs: new FsBlobStore(storage, echoes.ownRenames, echoes.placements),
      close: () => undefined,
    };
  }
  const settings = {
    ...s3SettingsFrom(config),
    ...(s3.credentials ? { credentials: s3.credentials } : {}),
  };
  const { store, aborted, swept } = await S3BlobStore.open(settings, s3.owner);
  logger.info(
    { bucket: settings.bucket, prefix: settings.prefix, aborted, swept },
    'assets are kept on S3',
  );
  return { blobs: store, close: () => store.close() };
}
