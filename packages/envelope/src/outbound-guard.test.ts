import { isLocalhostName, isPrivateAddress, resolveHost, urlHost } from './outbound-guard.js';

describe('outbound guard', () => {
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

  it('takes a URL host without brackets or the trailing dot', () => {
    expect(urlHost(new URL('https://[::1]:8443/x'))).toBe('::1');
    expect(urlHost(new URL('https://Example.COM./x'))).toBe('example.com');
  });

  it('treats localhost and names under it as loopback', () => {
    expect(isLocalhostName('LocalHost')).toBe(true);
    expect(isLocalhostName('a.b.localhost')).toBe(true);
    expect(isLocalhostName('localhost.example')).toBe(false);
  });

  it('resolves a literal to itself and an unknown name to undefined', async () => {
    expect(await resolveHost('10.0.0.1')).toEqual(['10.0.0.1']);
    expect(await resolveHost('no-such-host.invalid')).toBeUndefined();
  });
});
