import { setTimeout as sleep } from 'node:timers/promises';
import { AppError } from '@svc/envelope';
import type { Logger } from 'pino';
import type { AssetStorage } from '../storage/fs/asset-storage.js';
import type { BlobStore } from '../storage/blob-store.js';
import { FsBlobStore } from '../storage/fs/fs-blob-store.js';
import type { OwnRenames } from '../storage/fs/own-renames.js';
import type { PlacementAnnouncer } from '../storage/fs/placement-notices.js';
import {
  isStorageUnavailable,
  s3SettingsFrom,
  type S3ConfigKeys,
  type S3Settings,
} from '../storage/s3/s3-client.js';
import { S3BlobStore } from '../storage/s3/s3-blob-store.js';
import { describeS3Problem, s3Where } from '../storage/s3/s3-reachability.js';
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

/** An opened blob store, whether it can serve now, and how to let it go. */
export interface OpenedBlobStore {
  blobs: BlobStore;
  /** Why the storage cannot serve now (S3 unreachable), or undefined (`/healthz`). */
  problem(): Promise<string | undefined>;
  close(): void;
}

/** How a start that waits on the outside is told, and stopped (`main.ts` listens meanwhile). */
export interface StartupWatch {
  /** Aborted at shutdown: a start still waiting gives up. */
  signal?: AbortSignal;
  /** Start-up waits on something outside; `what` says on what, and why, in words. */
  waiting?: (what: string) => void;
}

/** A start still opening S3 after this long says that it waits, and on what. */
export const SLOW_OPEN_MS = 1_000;
/** Delays between tries to open S3 at start: doubling from 1 s to 30 s, each ±20 %. */
const RETRY_FIRST_MS = 1_000;
const RETRY_MAX_MS = 30_000;

/**
 * The blob store the configuration names: the storage root, or the S3 bucket (created when
 * absent, its unfinished uploads aborted and staged leftovers removed, as the start logs).
 * While S3 does not answer, the start says what it waits for and tries again with backoff.
 */
export async function openBlobStore(
  config: BlobStoreConfig,
  storage: AssetStorage,
  /** The service's own renames, and where the files it places are announced (file system). */
  echoes: { ownRenames: OwnRenames; placements?: PlacementAnnouncer },
  logger: Pick<Logger, 'info' | 'warn'>,
  s3: {
    /** This instance's presence: on S3 a start sweeps only the staging of gone instances. */
    owner?: StagingOwner;
    credentials?: S3Credentials;
    startup?: StartupWatch;
  } = {},
): Promise<OpenedBlobStore> {
  if (config.storage_backend === 'fs') {
    return {
      blobs: new FsBlobStore(storage, echoes.ownRenames, echoes.placements),
      problem: () => Promise.resolve(undefined),
      close: () => undefined,
    };
  }
  const settings = {
    ...s3SettingsFrom(config),
    ...(s3.credentials ? { credentials: s3.credentials } : {}),
  };
  const { store, aborted, swept } = await openS3UntilItAnswers(
    settings,
    s3.owner,
    logger,
    s3.startup ?? {},
  );
  logger.info(
    { bucket: settings.bucket, prefix: settings.prefix, aborted, swept },
    'assets are kept on S3',
  );
  return {
    blobs: store,
    problem: () => store.reachability.problem(),
    close: () => store.close(),
  };
}

/** An outage S3's client met (the raw error, or the catalogue's 503 it became). */
function isOutage(err: unknown): boolean {
  if (err instanceof AppError && err.status === 503) return true;
  return isStorageUnavailable(err);
}

/**
 * Opens the bucket, trying again while S3 does not answer (refused, reset, silent past
 * `s3_timeout_seconds`, a 5xx): one warning `waiting for S3` once the first try is slow or
 * fails, then one `S3 does not answer; retrying` per failed try with its reason and delay.
 * Anything else (refused credentials, a bad bucket name) stops the start at once.
 */
async function openS3UntilItAnswers(
  settings: S3Settings,
  owner: StagingOwner | undefined,
  logger: Pick<Logger, 'warn'>,
  startup: StartupWatch,
): ReturnType<typeof S3BlobStore.open> {
  const where = s3Where(settings);
  const fields = { endpoint: settings.endpoint ?? 'AWS', bucket: settings.bucket };
  let said = false;
  const wait = (why?: string) => {
    if (!said) logger.warn(fields, 'waiting for S3');
    said = true;
    startup.waiting?.(`waiting for ${where}${why ? `: ${why}` : ''}`);
  };
  for (let attempt = 1; ; attempt++) {
    startup.signal?.throwIfAborted();
    const slow = setTimeout(wait, SLOW_OPEN_MS);
    try {
      return await untilAborted(S3BlobStore.open(settings, owner), startup.signal);
    } catch (err) {
      if (!isOutage(err) || startup.signal?.aborted) throw err;
      const reason = describeS3Problem(where, err);
      wait(`last try: ${reason.slice(where.length + 1)}`);
      const retryInMs = Math.round(
        Math.min(RETRY_MAX_MS, RETRY_FIRST_MS * 2 ** (attempt - 1)) * (0.8 + Math.random() * 0.4),
      );
      logger.warn({ ...fields, attempt, retryInMs, reason }, 'S3 does not answer; retrying');
      await sleep(retryInMs, undefined, { signal: startup.signal });
    } finally {
      clearTimeout(slow);
    }
  }
}

/** `work`, or a rejection as soon as `signal` aborts (the work itself runs on, unheard). */
function untilAborted<T>(work: Promise<T>, signal: AbortSignal | undefined): Promise<T> {
  if (!signal) return work;
  return new Promise<T>((resolve, reject) => {
    const stop = () => reject(signal.reason as Error);
    if (signal.aborted) stop();
    signal.addEventListener('abort', stop, { once: true });
    work.then(resolve, reject).finally(() => signal.removeEventListener('abort', stop));
  });
}
