import crypto from 'node:crypto';
import { PostgreSqlContainer, type StartedPostgreSqlContainer } from '@testcontainers/postgresql';
import { Network, type StartedNetwork } from 'testcontainers';
import {
  AssetStoreContainer,
  type StartedAssetStoreContainer,
} from '../src/asset-store-container.js';
import { serviceImage } from './prebuilt.js';

let network: StartedNetwork;
let postgres: StartedPostgreSqlContainer;
let image: string;
const started: StartedAssetStoreContainer[] = [];

beforeAll(async () => {
  image = await serviceImage('asset-store');
  network = await new Network().start();
  postgres = await new PostgreSqlContainer('postgres:16-alpine')
    .withNetwork(network)
    .withNetworkAliases('db')
    .start();
});

afterAll(async () => {
  for (const c of started) await c.stop();
  await postgres?.stop();
  await network?.stop();
});

/** The asset id anyone can recompute: SHA-256 of the 8-byte big-endian timestamp, then the bytes. */
function assetHash(timestamp: number, content: Buffer): string {
  const ts = Buffer.alloc(8);
  ts.writeBigUInt64BE(BigInt(timestamp));
  return crypto.createHash('sha256').update(ts).update(content).digest('hex');
}

/** Ingests a file and downloads it again, checking both answers. */
async function ingestAndDownload(container: StartedAssetStoreContainer): Promise<string> {
  const content = Buffer.from(`notes taken ${crypto.randomUUID()}\n`);
  const form = new FormData();
  form.set('tags', 'e2e');
  form.set('file', new Blob([content], { type: 'text/plain' }), 'notes.txt');
  const ingested = await fetch(`${container.getApiUrl()}/ingest`, { method: 'POST', body: form });
  expect(ingested.status).toBe(200);
  const body = (await ingested.json()) as { data: { timestamp: number; hash: string } };
  const { timestamp, hash } = body.data;
  expect(body).toEqual({
    status: 'success',
    data: { timestamp, hash, filename: `${timestamp}_${hash}_e2e.txt` },
  });
  expect(hash).toBe(assetHash(timestamp, content));

  const downloaded = await fetch(`${container.getApiUrl()}/asset/${hash}`);
  expect(downloaded.status).toBe(200);
  expect(downloaded.headers.get('content-type')).toMatch(/^text\/plain/);
  expect(downloaded.headers.get('etag')).toBe(`"${hash}"`);
  expect(Buffer.from(await downloaded.arrayBuffer())).toEqual(content);
  return hash;
}

describe('AssetStoreContainer', () => {
  it('starts on its embedded database, healthy, with its admin endpoints behind the token', async () => {
    const container = await new AssetStoreContainer(image).withAdminToken('e2e-secret').start();
    started.push(container);
    const health = await fetch(`${container.getBaseUrl()}/healthz`);
    expect(health.status).toBe(200);
    expect(await health.json()).toEqual({
      status: 'success',
      data: { status: 'ok', version: expect.any(String) as string },
    });
    await ingestAndDownload(container);

    const verify = (token: string) =>
      fetch(`${container.getApiUrl()}/admin/verify`, {
        method: 'POST',
        headers: { Authorization: `Bearer ${token}` },
      });
    const refused = await verify('wrong');
    expect(refused.status).toBe(401);
    expect(await refused.json()).toEqual({
      status: 'error',
      error: 'missing or invalid admin token',
    });
    const verified = await verify(container.getAdminToken() ?? '');
    expect(verified.status).toBe(200);
    expect(await verified.json()).toEqual({
      status: 'success',
      data: { checked: 1, corrupted: 0, missing: 0, duration_ms: expect.any(Number) as number },
    });
  });

  it('indexes into a PostgreSQL server reached through a network alias', async () => {
    const container = await new AssetStoreContainer(image)
      .withNetwork(network)
      .withDatabaseUrl(
        `postgres://${postgres.getUsername()}:${postgres.getPassword()}@db:5432/${postgres.getDatabase()}`,
      )
      .start();
    started.push(container);
    const hash = await ingestAndDownload(container);
    const rows = await postgres.exec([
      'psql',
      '-U',
      postgres.getUsername(),
      '-d',
      postgres.getDatabase(),
      '-Atc',
      'select hash from asset_store.asset',
    ]);
    expect(rows.output.trim()).toBe(hash);
  });
});
