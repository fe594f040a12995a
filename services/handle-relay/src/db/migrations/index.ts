import type { Migration } from 'kysely';
import * as createHandle from './20261121060000_create_handle.js';
import * as createMessage from './20261121200000_create_message.js';
import * as createPushSubscription from './20261121200100_create_push_subscription.js';
import * as messageCreatedText from './20261123100000_message_created_text.js';
import * as rateBucket from './20261126180000_rate_bucket.js';
import * as sigchainLog from './20261207070000_sigchain_log.js';

/** Every migration, by sortable name; the list is explicit so bundles and tests load the same set. */
export const migrations: Record<string, Migration> = {
  '20261121060000_create_handle': createHandle,
  '20261121200000_create_message': createMessage,
  '20261121200100_create_push_subscription': createPushSubscription,
  '20261123100000_message_created_text': messageCreatedText,
  '20261126180000_rate_bucket': rateBucket,
  '20261207070000_sigchain_log': sigchainLog,
};
