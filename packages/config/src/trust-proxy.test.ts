import { trustProxySetting } from './trust-proxy.js';

describe('trustProxySetting', () => {
  it.each([
    [false, false],
    [true, true],
    ['true', true],
    ['FALSE', false],
    [2, 2],
    ['3', 3],
    ['10.0.0.0/8, loopback', ['10.0.0.0/8', 'loopback']],
    [
      ['127.0.0.1', '::1'],
      ['127.0.0.1', '::1'],
    ],
  ])('reads %j', (given, read) => {
    expect(trustProxySetting.parse(given)).toEqual(read);
  });

  it.each([-1, 1.5, 'proxy.example', ['10.0.0.0/99'], []])('refuses %j', (given) => {
    expect(trustProxySetting.safeParse(given).success).toBe(false);
  });
});
