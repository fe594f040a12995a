import { S3ServiceException } from '@aws-sdk/client-s3';
import { S3Reachability } from './s3-reachability.js';

const WHERE = 'S3 at http://s3.test (bucket b)';

/** A tracker on a clock the test moves, whose probe the test answers (or never does). */
function tracker(answer: () => Promise<void> = () => Promise.resolve()) {
  let now = 1_000_000;
  let probes = 0;
  const reachability = new S3Reachability({
    where: WHERE,
    clock: () => now,
    ttlMs: 5_000,
    probeTimeoutMs: 50,
    probe: async (signal) => {
      probes++;
      await Promise.race([
        answer(),
        new Promise((_, reject) =>
          signal.addEventListener('abort', () => reject(new Error('aborted'))),
        ),
      ]);
    },
  });
  return {
    reachability,
    probes: () => probes,
    advance: (ms: number) => (now += ms),
  };
}

const refused = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:7480'), {
  code: 'ECONNREFUSED',
});

describe('S3Reachability: what /healthz says of S3, cheaply', () => {
  it('asks S3 once for any number of health checks at the same moment, then trusts that for 5 s', async () => {
    const t = tracker();
    const answers = await Promise.all(Array.from({ length: 50 }, () => t.reachability.problem()));
    expect(answers).toEqual(Array.from({ length: 50 }, () => undefined));
    expect(t.probes()).toBe(1);
    t.advance(4_999);
    await t.reachability.problem();
    expect(t.probes()).toBe(1);
    t.advance(1);
    await t.reachability.problem();
    expect(t.probes()).toBe(2);
  });

  it('asks S3 nothing while the service’s own calls tell it how S3 is doing', async () => {
    const t = tracker();
    for (let i = 0; i < 10; i++) {
      t.reachability.answered();
      expect(await t.reachability.problem()).toBeUndefined();
      t.advance(3_000);
    }
    t.reachability.failed(refused);
    expect(await t.reachability.problem()).toBe(`${WHERE} does not answer (ECONNREFUSED)`);
    t.reachability.answered();
    expect(await t.reachability.problem()).toBeUndefined();
    expect(t.probes()).toBe(0);
  });

  it('says why: refused, an error status, a probe that never answers', async () => {
    const down = tracker(() => Promise.reject(refused));
    expect(await down.reachability.problem()).toBe(`${WHERE} does not answer (ECONNREFUSED)`);

    const missing = new S3ServiceException({
      name: 'NoSuchBucket',
      $fault: 'client',
      $metadata: { httpStatusCode: 404 },
    });
    const gone = tracker(() => Promise.reject(missing));
    expect(await gone.reachability.problem()).toBe(`${WHERE} answers 404 NoSuchBucket`);

    const hung = tracker(() => new Promise(() => undefined));
    expect(await hung.reachability.problem()).toBe(
      `${WHERE} does not answer (nothing within 50 ms)`,
    );
    const timedOut = tracker();
    timedOut.reachability.failed(
      Object.assign(new Error('socket timed out'), { name: 'TimeoutError' }),
    );
    expect(await timedOut.reachability.problem()).toBe(`${WHERE} does not answer (timed out)`);
  });
});
