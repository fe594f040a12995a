// One line per feature: add its `<feature>.openapi.ts` export here to publish its paths.
import { apiDocsOpenApi } from '@svc/envelope';
import { adminOpenApi } from './admin/admin.openapi.js';
import { consoleOpenApi } from './console/console.openapi.js';
import { assetOpenApi } from './assets/asset.openapi.js';
import { changeOpenApi } from './changes/change.openapi.js';
import { healthOpenApi } from './health/health.openapi.js';
import { jobOpenApi } from './jobs/job.openapi.js';
import type { OpenApiFeature } from './openapi/openapi.js';
import { searchOpenApi } from './search/search.openapi.js';
import { browseOpenApi } from './browse/browse.openapi.js';
import { thumbnailOpenApi } from './thumbnails/thumbnail.openapi.js';
import { uploadOpenApi } from './uploads/upload.openapi.js';
import { webhookOpenApi } from './webhooks/webhook.openapi.js';

/** Every feature's part of `/openapi.json`, merged by `buildOpenApiDocument`. */
export const openApiFeatures: readonly OpenApiFeature[] = [
  healthOpenApi,
  assetOpenApi,
  searchOpenApi,
  browseOpenApi,
  changeOpenApi,
  thumbnailOpenApi,
  uploadOpenApi,
  adminOpenApi,
  jobOpenApi,
  webhookOpenApi,
  consoleOpenApi,
  apiDocsOpenApi,
];
