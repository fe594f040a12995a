import type { Migration } from 'kysely';
import * as createHandle from './20261121060000_create_handle.js';
import * as createMessage from './20261121200000_create_message.js';
import * as createPushSubscription from './20261121200100_create_push_subscription.js';
import * as notifyMessage from './20261121200200_notify_message.js';
import * as dropNotifyTrigger from './20261121200300_drop_notify_trigger.js';

/** Every migration, by sortable name; the list is explicit so bundles and tests load the same set. */
export const migrations: Record<string, Migration> = {
  '20261121060000_create_handle': createHandle,
  '20261121200000_create_message': createMessage,
  '20261121200100_create_push_subscription': createPushSubscription,
  '20261121200200_notify_message': notifyMessage,
  '20261121200300_drop_notify_trigger': dropNotifyTrigger,
};
