import { adminOpenApi } from '../admin/admin.openapi.js';
import { assetOpenApi } from '../assets/asset.openapi.js';
import { healthOpenApi } from '../health/health.openapi.js';
import { searchOpenApi } from '../search/search.openapi.js';
import { thumbnailOpenApi } from '../thumbnails/thumbnail.openapi.js';
import type { OpenApiFeature } from './openapi.js';

/** Every feature's part of `/openapi.json`; a new feature adds one line here. */
export const openApiFeatures: readonly OpenApiFeature[] = [
  healthOpenApi,
  assetOpenApi,
  searchOpenApi,
  thumbnailOpenApi,
  adminOpenApi,
];
