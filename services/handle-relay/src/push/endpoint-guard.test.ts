import { endpointProblem, isPrivateAddress } from './endpoint-guard.js';

describe('push endpoint guard', () => {
  it.each([
    '127.0.0.1',
    '10.1.2.3',
    '172.16.0.1',
    '192.168.1.1',
    '169.254.169.254',
    '100.64.0.1',
    '0.0.0.0',
    '::1',
    '::',
    'fe80::1',
    'fd00::1',
    '::ffff:127.0.0.1',
    '::ffff:7f00:1',
    '::7f00:1',
    '64:ff9b::a9fe:a9fe',
    '2002:c0a8:101::1',
    'fec0::1',
  ])('treats %s as private', (address) => {
    expect(isPrivateAddress(address)).toBe(true);
  });

  it.each([
    '8.8.8.8',
    '1.1.1.1',
    '2606:4700:4700::1111',
    '::ffff:8.8.8.8',
    '64:ff9b::808:808',
    '2002:808:808::1',
  ])('treats %s as public', (address) => {
    expect(isPrivateAddress(address)).toBe(false);
  });

  it('refuses http:, private literals and localhost unless private endpoints are allowed', async () => {
    expect(await endpointProblem('http://8.8.8.8/push', false)).toBe(
      'endpoint must be an https: URL',
    );
    const privateMsg = 'endpoint must not resolve to a loopback, private or link-local address';
    expect(await endpointProblem('https://127.0.0.1/push', false)).toBe(privateMsg);
    expect(await endpointProblem('https://[::1]/push', false)).toBe(privateMsg);
    expect(await endpointProblem('https://localhost/push', false)).toBe(privateMsg);
    expect(await endpointProblem('https://LocalHost./push', false)).toBe(privateMsg);
    expect(await endpointProblem('https://a.b.localhost/push', false)).toBe(privateMsg);
    expect(await endpointProblem('https://8.8.8.8/push', false)).toBeUndefined();
    expect(await endpointProblem('http://127.0.0.1:9/push', true)).toBeUndefined();
    expect(await endpointProblem('ftp://127.0.0.1/push', true)).toBe(
      'endpoint must be an http: or https: URL',
    );
    expect(await endpointProblem('not a url', false)).toBe('endpoint must be an absolute URL');
  });
});
