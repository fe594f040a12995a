import { testDatabaseMode } from '@svc/testing';
import { ingestData } from './asset-helpers.js';
import { allChanges } from './change-helpers.js';
import { createTestApp, type TestApp } from './test-app.js';

/** Two instances need a server (the embedded database is one process's). */
const onServer = testDatabaseMode() === 'postgres' ? describe : describe.skip;

onServer('the change feed over two instances on one database', () => {
  let a: TestApp;
  let b: TestApp;
  beforeAll(async () => {
    a = await createTestApp('changes_two');
    b = await createTestApp('changes_two_b', {}, { sharedTarget: a.index.target });
  }, 60_000);
  afterAll(async () => {
    await b?.close();
    await a?.close();
  });

  it('has every ingest of both once, numbered 1..n with no duplicate and no hole', async () => {
    const ingested = await Promise.all(
      Array.from({ length: 40 }, (_, i) => ingestData(i % 2 ? a.app : b.app, { data: i })),
    );
    for (const reader of [a, b]) {
      const events = await allChanges(reader.app, 7);
      expect(events.map((e) => e.id)).toEqual(events.map((_, i) => String(i + 1)));
      expect(events.map((e) => e.hash).sort()).toEqual(ingested.map((x) => x.hash).sort());
      expect(new Set(events.map((e) => e.type))).toEqual(new Set(['asset.created']));
    }
  });
});
