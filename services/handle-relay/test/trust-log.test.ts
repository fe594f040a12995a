import request from 'supertest';
import nacl from 'tweetnacl';
import {
  authLines,
  generateKeyPair,
  leafHash,
  linkLine,
  primaryOf,
  rotationLink,
  signedAuthValue,
  toHex,
  treeHeadMessage,
  verifyChain,
  type KeyPair,
  type SigchainLink,
} from '../src/client/index.js';
import type { HandleRecord } from '../src/handles/handle-record.js';
import {
  badRequest,
  registerHandle,
  uniqueHandle,
  type ErrorBody,
  type RegisteredHandle,
} from './handle-factories.js';
import { openSse } from './sse-client.js';
import { listenOnLoopback, useTestApp } from './test-app.js';
import {
  refLeaf,
  refMth,
  refPath,
  refProof,
  refVerifyConsistency,
  refVerifyInclusion,
} from './rfc9162.js';

const SERVER = 'relay.test';
const t = useTestApp('trust_log', { sig_server_url: 'https://relay.test/' });

async function chainOf(primary: string): Promise<string[]> {
  const res = await request(t.app)
    .get(`/v1/sigchains/${primary.replace(':', '/')}`)
    .expect(200);
  expect(res.headers['content-type']).toBe('application/jsonl');
  const text = res.text;
  expect(text.endsWith('\n')).toBe(true);
  return text.slice(0, -1).split('\n');
}

async function head() {
  return (await request(t.app).get('/v1/log/head').expect(200)).body as {
    size: number;
    root: string;
    timestamp: number;
    key: string;
    sig: string;
  };
}

async function allEntries(size: number): Promise<string[]> {
  const res = await request(t.app).get(`/v1/log/entries?start=0&end=${size}`).expect(200);
  return (res.body as { entries: string[] }).entries;
}

function rotate(
  owner: { keys: KeyPair },
  lastLine: string,
  next: KeyPair,
  ctime?: number,
): SigchainLink {
  return rotationLink({
    lastLine,
    oldSecretKey: owner.keys.secretKey,
    newSecretKey: next.secretKey,
    ctime,
  });
}

function inboxAuth(handle: string, keys: KeyPair): string {
  return signedAuthValue(keys.secretKey, authLines.inbox(handle, 0));
}

/** Every proof of the tree of each size up to the head's, against the reference. */
async function checkEveryProof(): Promise<void> {
  const h = await head();
  const entries = await allEntries(h.size);
  expect(entries).toHaveLength(h.size);
  expect(h.root).toBe(refMth(entries).toString('hex'));
  for (let size = 1; size <= h.size; size++) {
    const root = refMth(entries.slice(0, size)).toString('hex');
    for (let m = 0; m < size; m++) {
      const leaf = refLeaf(entries[m]!).toString('hex');
      const res = await request(t.app)
        .get(`/v1/log/inclusion?leaf=${leaf}&size=${size}`)
        .expect(200);
      expect(res.body).toEqual({ index: m, size, path: refPath(m, entries.slice(0, size)) });
      const { path } = res.body as { path: string[] };
      expect(refVerifyInclusion(m, size, leaf, path, root)).toBe(true);
    }
    for (let from = 1; from < size; from++) {
      const res = await request(t.app)
        .get(`/v1/log/consistency?from=${from}&to=${size}`)
        .expect(200);
      expect(res.body).toEqual({ path: refProof(from, entries.slice(0, size)) });
      const fromRoot = refMth(entries.slice(0, from)).toString('hex');
      const { path } = res.body as { path: string[] };
      expect(refVerifyConsistency(from, size, fromRoot, root, path)).toBe(true);
    }
  }
}

describe('signature chains', () => {
  it('registration writes the eldest link, served for the key as application/jsonl', async () => {
    const alice = await registerHandle(t.app, SERVER, uniqueHandle('alice'));
    expect(alice.record.sigchain_url).toBe(
      `https://relay.test/v1/sigchains/ed25519/${alice.record.primary.slice(8)}`,
    );
    const lines = await chainOf(alice.record.primary);
    expect(lines).toHaveLength(1);
    const link = JSON.parse(lines[0]!) as SigchainLink;
    expect(link).toEqual({
      seq: 1,
      prev: null,
      type: 'eldest',
      handle: `${alice.handle}@${SERVER}`,
      key: alice.record.primary,
      ctime: expect.any(Number) as number,
      sig: expect.stringMatching(/^[0-9a-f]{128}$/) as string,
    });
    expect(linkLine(link)).toBe(lines[0]);
    expect(verifyChain(lines).key).toBe(alice.record.primary);
    // Uppercase hex folds; a key nobody holds, another scheme or junk: 404.
    await request(t.app)
      .get(`/v1/sigchains/ed25519/${alice.record.primary.slice(8).toUpperCase()}`)
      .expect(200);
    await request(t.app)
      .get(`/v1/sigchains/ed25519/${'ab'.repeat(32)}`)
      .expect(404);
    await request(t.app)
      .get(`/v1/sigchains/rsa/${alice.record.primary.slice(8)}`)
      .expect(404);
    await request(t.app).get('/v1/sigchains/ed25519/xyz').expect(404);
  });

  it('a spec client registration (no eldest_sig) still gets an eldest link that verifies', async () => {
    const keys = generateKeyPair();
    const handle = uniqueHandle('plain');
    const payload = {
      server: SERVER,
      handle,
      primary: primaryOf(keys.publicKey),
      ts: Math.floor(Date.now() / 1000),
    };
    const { canonicalJson } = await import('../src/client/canonical-json.js');
    const sig = toHex(nacl.sign.detached(Buffer.from(canonicalJson(payload)), keys.secretKey));
    await request(t.app)
      .post('/v1/register')
      .send({ payload, signature: { alg: 'ed25519-sha512-jcs', key: payload.primary, sig } })
      .expect(201);
    const lines = await chainOf(payload.primary);
    expect(JSON.parse(lines[0]!)).toMatchObject({ sig, ctime: payload.ts });
    expect(verifyChain(lines).key).toBe(payload.primary);
  });
});

describe('POST /v1/rotate', () => {
  let bob: RegisteredHandle;
  let eldest: string;
  beforeAll(async () => {
    bob = await registerHandle(t.app, SERVER, uniqueHandle('bob'));
    eldest = (await chainOf(bob.record.primary))[0]!;
  });

  it('refuses a link that breaks a rule, each with its status and reason', async () => {
    const next = generateKeyPair();
    const good = rotate(bob, eldest, next);
    const post = (body: unknown) =>
      request(t.app)
        .post('/v1/rotate')
        .send(body as object);
    const now = Math.floor(Date.now() / 1000);
    await post({ ...good, extra: 1 }).expect(400);
    await post({ ...good, type: 'eldest' }).expect(400);
    await post({ ...good, handle: `${bob.handle}@elsewhere` }).expect(400);
    await post({ ...good, handle: `nobody-${bob.handle}@${SERVER}` }).expect(404);
    const stale = await post(rotate(bob, eldest, next, now - 301)).expect(400);
    expect((stale.body as ErrorBody).error.message).toMatch(/ctime/);
    const moved = await post({ ...good, prev: 'ab'.repeat(32) }).expect(409);
    expect((moved.body as ErrorBody).error.code).toBe('conflict');
    // Signed by a key that is not in force.
    const intruder = rotationLink({
      lastLine: eldest,
      oldSecretKey: generateKeyPair().secretKey,
      newSecretKey: next.secretKey,
    });
    const bad = await post(intruder).expect(401);
    expect((bad.body as ErrorBody).error.message).toMatch(/sig did not verify by the key in force/);
    const badNew = await post({ ...good, new_sig: good.sig }).expect(401);
    expect((badNew.body as ErrorBody).error.message).toMatch(/new_sig/);
    // A new key that already owns a handle.
    const carol = await registerHandle(t.app, SERVER, uniqueHandle('carol'));
    await post(rotate(bob, eldest, carol.keys)).expect(409);
    // None of them moved the handle.
    expect(
      ((await request(t.app).get(`/v1/u/${bob.handle}`).expect(200)).body as HandleRecord).primary,
    ).toBe(bob.record.primary);
    expect(await chainOf(bob.record.primary)).toEqual([eldest]);
  });

  it('moves the handle to the new key at once: auth, streams, by-primary, chain', async () => {
    const listening = await listenOnLoopback(t.app);
    try {
      const stream = await openSse(
        listening.url,
        `/v1/inbox/${bob.handle}/stream?auth=${encodeURIComponent(signedAuthValue(bob.keys.secretKey, authLines.stream(bob.handle)))}`,
      );
      expect(stream.status).toBe(200);
      const next = generateKeyPair();
      const link = rotate(bob, eldest, next);
      const res = await request(t.app).post('/v1/rotate').send(link).expect(200);
      expect(res.body).toMatchObject({ handle: bob.handle, primary: primaryOf(next.publicKey) });
      // The old key's stream is ended.
      await waitUntilTrue(() => stream.ended);
      // A second rotation from the same line is stale.
      await request(t.app)
        .post('/v1/rotate')
        .send(rotate(bob, eldest, generateKeyPair()))
        .expect(409);
      await request(t.app)
        .get(`/v1/inbox/${bob.handle}`)
        .set('X-ID-Auth', inboxAuth(bob.handle, bob.keys))
        .expect(401);
      await request(t.app)
        .get(`/v1/inbox/${bob.handle}`)
        .set('X-ID-Auth', inboxAuth(bob.handle, next))
        .expect(200);
      await request(t.app).get(`/v1/by-primary/${bob.record.primary}`).expect(404);
      await request(t.app)
        .get(`/v1/by-primary/${primaryOf(next.publicKey)}`)
        .expect(200);
      // Both keys serve the whole chain, which verifies.
      const byOld = await chainOf(bob.record.primary);
      expect(await chainOf(primaryOf(next.publicKey))).toEqual(byOld);
      expect(byOld).toEqual([eldest, linkLine(link)]);
      expect(verifyChain(byOld).key).toBe(primaryOf(next.publicKey));
    } finally {
      await listening.close();
    }
  });
});

async function waitUntilTrue(check: () => boolean, timeoutMs = 5000): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > until) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 20));
  }
}

describe('the transparency log', () => {
  it('signs its heads with the log key, named in /v1/healthz', async () => {
    const h = await head();
    const health = (await request(t.app).get('/v1/healthz').expect(200)).body as {
      log_key: string;
    };
    expect(h.key).toBe(health.log_key);
    expect(health).not.toHaveProperty('log_key_problem');
    const ok = nacl.sign.detached.verify(
      Buffer.from(treeHeadMessage(h.size, h.root, h.timestamp)),
      Buffer.from(h.sig, 'hex'),
      Buffer.from(h.key.slice(8), 'hex'),
    );
    expect(ok).toBe(true);
  });

  it('holds every link in acknowledgement order, each proof equal to the RFC 9162 reference', async () => {
    // Registrations at once (batched), one after another, and a rotation between.
    await Promise.all(Array.from({ length: 4 }, () => registerHandle(t.app, SERVER)));
    const dave = await registerHandle(t.app, SERVER, uniqueHandle('dave'));
    const davesEldest = (await chainOf(dave.record.primary))[0]!;
    await request(t.app)
      .post('/v1/rotate')
      .send(rotate(dave, davesEldest, generateKeyPair()))
      .expect(200);
    const h = await head();
    const entries = await allEntries(h.size);
    // The rotation is the last leaf, acknowledged after every registration.
    expect(entries.at(-1)).toBe((await chainOf(dave.record.primary))[1]);
    expect(leafHash(entries[0]!)).toEqual(new Uint8Array(refLeaf(entries[0]!)));
    await checkEveryProof();
  });

  it('answers 400 for sizes beyond the head and malformed queries, 404 for an unknown leaf', async () => {
    const { size } = await head();
    const leaf = refLeaf((await allEntries(1))[0]!).toString('hex');
    await request(t.app)
      .get(`/v1/log/inclusion?leaf=${leaf}&size=${size + 1}`)
      .expect(400);
    await request(t.app)
      .get(`/v1/log/consistency?from=1&to=${size + 1}`)
      .expect(400);
    await request(t.app)
      .get(`/v1/log/entries?start=0&end=${size + 1}`)
      .expect(400);
    await request(t.app).get(`/v1/log/consistency?from=0&to=${size}`).expect(400);
    await request(t.app).get(`/v1/log/consistency?from=${size}&to=1`).expect(400);
    await request(t.app).get(`/v1/log/inclusion?leaf=zz&size=1`).expect(400);
    await request(t.app)
      .get(`/v1/log/inclusion?leaf=${'00'.repeat(32)}&size=${size}`)
      .expect(404);
    await request(t.app).get('/v1/log/entries?start=-1&end=1').expect(400);
    // A range wider than one answer is refused, not cut short, wherever it starts.
    for (const [start, end] of [
      [0, 1001],
      [1, 5000],
    ]) {
      const wide = await request(t.app)
        .get(`/v1/log/entries?start=${start}&end=${end}`)
        .expect(400);
      expect(wide.body).toEqual(
        badRequest('end - start must be at most 1000: ask for the rest in further requests'),
      );
    }
    expect(
      (await request(t.app).get(`/v1/log/consistency?from=${size}&to=${size}`).expect(200)).body,
    ).toEqual({ path: [] });
  });
});
