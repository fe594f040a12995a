import type { Migration } from 'kysely';
import * as createAsset from './20261121060000_create_asset.js';
import * as visibleAssetIndexes from './20261121200000_visible_asset_indexes.js';
import * as assetCounts from './20261121200100_asset_counts.js';
import * as coveringFilterIndexes from './20261121200200_covering_filter_indexes.js';
import * as hashPrefixWithTimestamp from './20261121200400_hash_prefix_with_timestamp.js';
import * as assetTagIndex from './20261122100000_asset_tag_index.js';
import * as contentSha256 from './20261126150000_content_sha256.js';
import * as attributeIntent from './20261126160000_attribute_intent.js';
import * as job from './20261126180000_job.js';
import * as assetCountBytes from './20261126180100_asset_count_bytes.js';
import * as timestampAllocator from './20261126190000_timestamp_allocator.js';
import * as assetCountSlots from './20261126190100_asset_count_slots.js';
import * as jobInstance from './20261126200000_job_instance.js';
import * as assetEvent from './20261207070000_asset_event.js';
import * as mediaAndTextSearch from './20261207080000_media_and_text_search.js';
import * as webhook from './20261207090000_webhook.js';
import * as rebuildEvents from './20261207100000_rebuild_events.js';
import * as webhookLeaseOwner from './20261207110000_webhook_lease_owner.js';
import * as assetText from './20261207120000_asset_text.js';
import * as assetTextPairs from './20261207130000_asset_text_pairs.js';
import * as eventNumberingPlan from './20261207150000_event_numbering_plan.js';
import * as takenOrder from './20261207160000_taken_order.js';
import * as textPairsLinear from './20261208090000_text_pairs_linear.js';

/** Every migration, by sortable name; the list is explicit so bundles and tests load the same set. */
export const migrations: Record<string, Migration> = {
  '20261121060000_create_asset': createAsset,
  '20261121200000_visible_asset_indexes': visibleAssetIndexes,
  '20261121200100_asset_counts': assetCounts,
  '20261121200200_covering_filter_indexes': coveringFilterIndexes,
  '20261121200400_hash_prefix_with_timestamp': hashPrefixWithTimestamp,
  '20261122100000_asset_tag_index': assetTagIndex,
  '20261126150000_content_sha256': contentSha256,
  '20261126160000_attribute_intent': attributeIntent,
  '20261126180000_job': job,
  '20261126180100_asset_count_bytes': assetCountBytes,
  '20261126190000_timestamp_allocator': timestampAllocator,
  '20261126190100_asset_count_slots': assetCountSlots,
  '20261126200000_job_instance': jobInstance,
  '20261207070000_asset_event': assetEvent,
  '20261207080000_media_and_text_search': mediaAndTextSearch,
  '20261207090000_webhook': webhook,
  '20261207100000_rebuild_events': rebuildEvents,
  '20261207110000_webhook_lease_owner': webhookLeaseOwner,
  '20261207120000_asset_text': assetText,
  '20261207130000_asset_text_pairs': assetTextPairs,
  '20261207150000_event_numbering_plan': eventNumberingPlan,
  '20261207160000_taken_order': takenOrder,
  '20261208090000_text_pairs_linear': textPairsLinear,
};
