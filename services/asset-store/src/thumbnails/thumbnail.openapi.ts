import { API_BASE } from '../api-base.js';
import {
  errorResponses,
  hashParameter,
  type JsonObject,
  type OpenApiFeature,
} from '../openapi/openapi.js';

const side = (name: string): JsonObject => ({
  name,
  in: 'path',
  required: true,
  description: 'Box side in pixels.',
  schema: { type: 'integer', minimum: 1, maximum: 4096 },
});

/** `GET /asset/{hash}/thumb/{max_width}/{max_height}`. */
export const thumbnailOpenApi: OpenApiFeature = {
  paths: {
    [`${API_BASE}/asset/{hash}/thumb/{max_width}/{max_height}`]: {
      get: {
        summary: 'A thumbnail fitting the box',
        operationId: 'getThumbnail',
        description:
          'Images: a JPEG fitting the box, aspect kept, never enlarged, EXIF orientation applied, transparency on white. Anything else (or an image that cannot be decoded): an SVG placeholder showing the extension.',
        parameters: [hashParameter(), side('max_width'), side('max_height')],
        responses: {
          '200': {
            description: 'The thumbnail',
            content: {
              'image/jpeg': { schema: { type: 'string', format: 'binary' } },
              'image/svg+xml': { schema: { type: 'string' } },
            },
          },
          '304': { description: 'Not modified (If-None-Match with the strong ETag)' },
          ...errorResponses({
            400: 'Malformed hash or box side',
            404: 'Unknown hash',
            500: 'The asset is corrupted or its file is missing',
          }),
        },
      },
    },
  },
};
