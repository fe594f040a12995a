import type { S3Client } from '@aws-sdk/client-s3';
import { abortUnfinishedUploads, deleteObjectsUnder, type S3Settings } from './s3-client.js';

/**
 * Whether an instance still holds its presence (`InstancePresence.isGone`, by the tag its
 * staging keys carry): a start sweeps only the staging of instances that are gone.
 */
export type StagingOwnerGone = (tag: string) => Promise<boolean>;

/** This instance's presence: its id tags its staging keys. */
export interface StagingOwner {
  id: string;
  isGone: StagingOwnerGone;
}

/** The tag of a staging key `<prefix>.tmp/<tag>/...`, or undefined for another key. */
function stagingTag(key: string, prefix: string): string | undefined {
  const rest = key.startsWith(`${prefix}.tmp/`) ? key.slice(prefix.length + 5) : undefined;
  const slash = rest?.indexOf('/') ?? -1;
  return slash > 0 ? rest!.slice(0, slash) : undefined;
}

/**
 * What a crash left, removed at start (contract): unfinished multipart uploads under the
 * prefix and staged objects under `.tmp/`, begun before `startedAt`, except the staging of
 * an instance `owner` finds still present (it may be an ingest in flight).
 */
export async function sweepLeftovers(
  client: S3Client,
  settings: S3Settings,
  owner: StagingOwner | undefined,
  startedAt: Date,
): Promise<{ aborted: number; swept: number }> {
  const live = new Map<string, Promise<boolean>>();
  const keep = (key: string): Promise<boolean> => {
    const tag = stagingTag(key, settings.prefix);
    if (!owner || tag === undefined) return Promise.resolve(false);
    let alive = live.get(tag);
    if (!alive) {
      alive = owner.isGone(tag).then((gone) => !gone);
      live.set(tag, alive);
    }
    return alive;
  };
  const { bucket, prefix } = settings;
  const aborted = await abortUnfinishedUploads(client, bucket, prefix, startedAt, keep);
  const swept = await deleteObjectsUnder(client, bucket, `${prefix}.tmp/`, startedAt, keep);
  return { aborted, swept };
}
