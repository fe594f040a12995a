import fs from 'node:fs';
import path from 'node:path';
import type { RebuildReport as ServerRebuildReport } from '../src/admin/rebuild.service.js';
import type { AssetRecord } from '../src/assets/asset.model.js';
import type { BackfillReport as ServerBackfillReport } from '../src/assets/media-backfill.js';
import type * as client from '../src/client/index.js';
import type { Job as ServerJob } from '../src/jobs/job.model.js';
import { openApiFeatures } from '../src/openapi-features.js';
import { CLIENT_TYPES_FILE, clientTypesSource } from '../src/openapi/client-types.js';
import { buildOpenApiDocument } from '../src/openapi/openapi.js';
import type { AssetPage, ContentLookupResult } from '../src/search/search.service.js';
import type { ScrubReport } from '../src/verifier/verifier.service.js';
import { readVersion } from '../src/version.js';

// Compile-time (`pnpm typecheck`): the client's types, generated from the document, are the
// server's own. A field the server's record gains but the document lacks fails here.
// Exact: optional fields and readonly count too (mutual assignability would let them by).
type Same<A, B> =
  (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2 ? true : false;
true satisfies Same<client.Asset, AssetRecord>;
true satisfies Same<client.AssetPage, AssetPage>;
true satisfies Same<client.ContentLookup, ContentLookupResult>;
// A job's `result` is `unknown` on the server; the document names the two reports it holds.
true satisfies Same<Omit<client.Job, 'result'>, Omit<ServerJob, 'result'>>;
true satisfies Same<client.VerifyReport, ScrubReport>;
true satisfies Same<client.RebuildReport, ServerRebuildReport>;
true satisfies Same<client.BackfillReport, ServerBackfillReport>;

describe('the client types (src/client/api-types.ts)', () => {
  it('are what openapi-typescript makes of the OpenAPI document today', async () => {
    const document = buildOpenApiDocument(readVersion(), openApiFeatures);
    const expected = await clientTypesSource(document);
    const file = path.join(import.meta.dirname, '..', CLIENT_TYPES_FILE);
    const committed = fs.readFileSync(file, 'utf8');
    if (committed !== expected) {
      const lines = committed.split('\n');
      const wanted = expected.split('\n');
      const at = wanted.findIndex((line, i) => line !== lines[i]);
      throw new Error(
        `${CLIENT_TYPES_FILE} is out of date with the OpenAPI document (first difference at ` +
          `line ${(at < 0 ? wanted.length : at) + 1}): run \`pnpm --filter asset-store gen:client\` and commit it`,
      );
    }
    expect(committed).toContain('AssetRecord: {');
  });
});
