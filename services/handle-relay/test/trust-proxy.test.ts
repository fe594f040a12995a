import request from 'supertest';
import { registerHandle } from './handle-factories.js';
import { createTestApp, SETUP_TIMEOUT_MS, type TestApp } from './test-app.js';

let trusting: TestApp;
let direct: TestApp;
beforeAll(async () => {
  trusting = await createTestApp('trust_proxy_on', {
    rate_limit_per_minute: 2,
    trust_proxy: ['loopback'],
  });
  direct = await createTestApp('trust_proxy_off', { rate_limit_per_minute: 2 });
}, SETUP_TIMEOUT_MS);
afterAll(async () => {
  await Promise.all([trusting.close(), direct.close()]);
}, SETUP_TIMEOUT_MS);

/** Sends until refused; how many were accepted from the client named in the header. */
async function sendsFrom(t: TestApp, to: string, forwardedFor: string): Promise<number[]> {
  const statuses: number[] = [];
  for (let i = 0; i < 3; i++) {
    const res = await request(t.app)
      .post('/v1/messages')
      .set('X-Forwarded-For', forwardedFor)
      .send({ to, envelope: i });
    statuses.push(res.status);
  }
  return statuses;
}

describe('trust_proxy', () => {
  it('behind a trusted proxy, limits each forwarded client on its own', async () => {
    trusting.clock.fixedMs = Date.now();
    const bob = await registerHandle(trusting.app, trusting.config.server);
    expect(await sendsFrom(trusting, bob.handle, '203.0.113.1')).toEqual([201, 201, 429]);
    expect(await sendsFrom(trusting, bob.handle, '203.0.113.2')).toEqual([201, 201, 429]);
    // A client cannot pick its address: only the entry the trusted proxy appended counts.
    expect(await sendsFrom(trusting, bob.handle, '198.51.100.9, 203.0.113.2')).toEqual([
      429, 429, 429,
    ]);
  });

  it('without it (the default), ignores X-Forwarded-For: one peer, one budget', async () => {
    direct.clock.fixedMs = Date.now();
    const bob = await registerHandle(direct.app, direct.config.server);
    expect(await sendsFrom(direct, bob.handle, '203.0.113.1')).toEqual([201, 201, 429]);
    expect(await sendsFrom(direct, bob.handle, '203.0.113.2')).toEqual([429, 429, 429]);
  });
});
