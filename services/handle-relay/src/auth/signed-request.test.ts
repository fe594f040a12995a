import { generateKeyPair, primaryOf, signedAuthValue } from '../client/index.js';
import { verifySignedRequest } from './signed-request.js';

const keys = generateKeyPair();
const primary = primaryOf(keys.publicKey);
const lines = ['PUT', '/v1/profile/alice/proofs'];
const now = 1_800_000_000_000;
const ts = now / 1000;

function check(value: string | undefined, at = now, signedLines = lines) {
  return () => verifySignedRequest({ value, primary, lines: signedLines, now: at });
}

describe('verifySignedRequest', () => {
  it('accepts a fresh signature over the same lines and returns its timestamp', () => {
    expect(check(signedAuthValue(keys.secretKey, lines, ts))()).toBe(ts);
  });

  it('accepts timestamps 60 s away either way and refuses 61 s as stale', () => {
    expect(check(signedAuthValue(keys.secretKey, lines, ts - 60))()).toBe(ts - 60);
    expect(check(signedAuthValue(keys.secretKey, lines, ts + 60))()).toBe(ts + 60);
    expect(check(signedAuthValue(keys.secretKey, lines, ts - 61))).toThrow('auth header is stale');
    expect(check(signedAuthValue(keys.secretKey, lines, ts + 61))).toThrow('auth header is stale');
  });

  it('refuses a missing value', () => {
    expect(check(undefined)).toThrow('missing X-ID-Auth header');
  });

  it('refuses a value without a colon or with a non-integer timestamp', () => {
    expect(check('12345')).toThrow(/malformed auth value/);
    expect(check('12.5:abcd')).toThrow(/malformed auth value/);
    expect(check(':abcd')).toThrow(/malformed auth value/);
  });

  it('also accepts the lines as the path spelled the handle, and no other spelling', () => {
    const spelled = ['PUT', '/v1/profile/ALICE/proofs'];
    const verify = (signedLines: readonly string[]) => () =>
      verifySignedRequest({
        value: signedAuthValue(keys.secretKey, signedLines, ts),
        primary,
        lines,
        spelledLines: spelled,
        now,
      });
    expect(verify(lines)()).toBe(ts);
    expect(verify(spelled)()).toBe(ts);
    expect(verify(['PUT', '/v1/profile/Alice/proofs'])).toThrow('signature did not verify');
  });

  it('refuses a signature made for another operation', () => {
    const other = signedAuthValue(keys.secretKey, ['GET', '/v1/inbox/alice', 'since=0'], ts);
    expect(check(other)).toThrow('signature did not verify');
  });

  it('refuses a signature by another key and a garbled signature', () => {
    const stranger = generateKeyPair();
    expect(check(signedAuthValue(stranger.secretKey, lines, ts))).toThrow(
      'signature did not verify',
    );
    expect(check(`${ts}:zz`)).toThrow('signature did not verify');
  });

  it('throws 401 unauthorized AppErrors', () => {
    try {
      check(undefined)();
      throw new Error('expected a throw');
    } catch (err) {
      expect(err).toMatchObject({ status: 401, code: 'unauthorized' });
    }
  });
});
