// One line per feature: add its `<feature>.openapi.ts` export here to publish its paths.
import { apiDocsOpenApi } from '@svc/envelope';
import { handlesOpenApi } from './handles/handle.openapi.js';
import { healthOpenApi } from './health/health.openapi.js';
import { natsAuthOpenApi } from './internal/nats-auth.openapi.js';
import { messagesOpenApi } from './messages/message.openapi.js';
import { pushOpenApi } from './push/push.openapi.js';
import { sigchainOpenApi } from './sigchain/sigchain.openapi.js';
import { logOpenApi } from './translog/log.openapi.js';
import type { OpenApiFeature } from './openapi/openapi-types.js';
import { webOpenApi } from './web/web.openapi.js';
import { webFingerOpenApi } from './webfinger/webfinger.openapi.js';

/** Every feature's OpenAPI contribution, merged by `buildOpenApi`. */
export const openApiFeatures: readonly OpenApiFeature[] = [
  webOpenApi,
  healthOpenApi,
  handlesOpenApi,
  sigchainOpenApi,
  logOpenApi,
  webFingerOpenApi,
  natsAuthOpenApi,
  messagesOpenApi,
  pushOpenApi,
  apiDocsOpenApi,
];
