import { PostgreSqlContainer, type StartedPostgreSqlContainer } from '@testcontainers/postgresql';
import { Network, type StartedNetwork } from 'testcontainers';
import {
  HandleRelayContainer,
  type StartedHandleRelayContainer,
} from '../src/handle-relay-container.js';
import { serviceImage } from './prebuilt.js';
import { idAuth, newIdentity, registration } from './relay-keys.js';

let network: StartedNetwork;
let postgres: StartedPostgreSqlContainer;
let image: string;
const started: StartedHandleRelayContainer[] = [];

beforeAll(async () => {
  image = await serviceImage('handle-relay');
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

/** Registers `handle`, sends it a message and reads it back from the signed inbox. */
async function registerSendRead(container: StartedHandleRelayContainer, handle: string) {
  const base = container.getBaseUrl();
  const id = newIdentity();
  const registered = await fetch(`${base}/v1/register`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify(registration(id, container.getServerName(), handle)),
  });
  expect(registered.status).toBe(201);
  expect(await registered.json()).toEqual({
    handle,
    fqhn: `${handle}@${container.getServerName()}`,
    primary: id.primary,
    sigchain_url: expect.any(String) as string,
    registered_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/) as string,
    proofs: [],
  });

  const sent = await fetch(`${base}/v1/messages`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ to: handle, envelope: { hello: handle } }),
  });
  expect(sent.status).toBe(201);
  const { seq, created_at } = (await sent.json()) as { seq: number; created_at: string };

  const inbox = await fetch(`${base}/v1/inbox/${handle}?since=0`, {
    headers: { 'X-ID-Auth': idAuth(id, ['GET', `/v1/inbox/${handle}`, 'since=0']) },
  });
  expect(inbox.status).toBe(200);
  expect(await inbox.json()).toEqual({
    messages: [{ seq, envelope: { hello: handle }, created_at }],
    next_since: seq,
    has_more: false,
  });
}

describe('HandleRelayContainer', () => {
  it('starts on its embedded database, healthy, under the server name given', async () => {
    const container = await new HandleRelayContainer(image).withServerName('relay.test').start();
    started.push(container);
    const health = await fetch(`${container.getBaseUrl()}/v1/healthz`);
    expect(health.status).toBe(200);
    expect(await health.json()).toEqual({
      status: 'ok',
      server: 'relay.test',
      version: expect.any(String) as string,
      log_key: expect.stringMatching(/^ed25519:[0-9a-f]{64}$/) as string,
    });
    await registerSendRead(container, 'alice');
  });

  it('uses a PostgreSQL server reached through a network alias', async () => {
    const container = await new HandleRelayContainer(image)
      .withNetwork(network)
      .withDatabaseUrl(
        `postgres://${postgres.getUsername()}:${postgres.getPassword()}@db:5432/${postgres.getDatabase()}`,
      )
      .start();
    started.push(container);
    await registerSendRead(container, 'bob');
    const tables = await postgres.exec([
      'psql',
      '-U',
      postgres.getUsername(),
      '-d',
      postgres.getDatabase(),
      '-Atc',
      'select handle from handle_relay.handle',
    ]);
    expect(tables.output.trim()).toBe('bob');
  });
});
