import {
  errorResponse,
  fromZod,
  jsonResponse,
  pathParam,
  ref,
  type OpenApiFeature,
} from '../openapi/openapi-types.js';
import { rotateLinkSchema } from './sigchain.schemas.js';

/** Signature chains and key rotation (CONTRACT.md, "signature chains, key rotation"). */
export const sigchainOpenApi: OpenApiFeature = {
  paths: {
    '/v1/sigchains/{scheme}/{value}': {
      get: {
        summary: "A handle's whole signature chain, for any key it ever had",
        description:
          'One link a line (`application/jsonl`): `{seq, prev, type, handle, key, ctime, sig}` plus `new_sig` on `rotate`. Each line is the JSON text hashed into the transparency log.',
        operationId: 'sigchain',
        parameters: [
          pathParam('scheme', 'Key scheme: `ed25519`'),
          pathParam('value', 'The public key, hex'),
        ],
        responses: {
          '200': {
            description: 'The chain, one JSON link per line',
            content: { 'application/jsonl': { schema: { type: 'string' } } },
          },
          '404': errorResponse('No chain holds this key'),
        },
      },
    },
    '/v1/rotate': {
      post: {
        summary: 'Move a handle to a new key with a signed `rotate` link',
        description:
          "`sig` by the key in force and `new_sig` by the new key, both over the JCS form of the link without them; `prev` is the SHA-256 of the chain's last line; `ctime` within 5 minutes of server time. In the log before the answer; effective on every instance at once.",
        operationId: 'rotate',
        requestBody: {
          required: true,
          content: { 'application/json': { schema: fromZod(rotateLinkSchema) } },
        },
        responses: {
          '200': jsonResponse('The handle record on its new key', ref('HandleRecord')),
          '400': errorResponse('Not a rotate link of this server, ctime too far, or a wrong seq'),
          '401': errorResponse('A signature did not verify'),
          '404': errorResponse('Unknown handle'),
          '409': errorResponse('prev is stale (the chain moved on), or the new key owns a handle'),
          '413': errorResponse('Body above 16 KiB'),
        },
      },
    },
  },
};
