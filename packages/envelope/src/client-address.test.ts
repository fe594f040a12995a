import type { IncomingMessage } from 'node:http';
import { clientAddressFunction } from './client-address.js';

function fakeRequest(peer: string, forwardedFor?: string): IncomingMessage {
  const headers = forwardedFor === undefined ? {} : { 'x-forwarded-for': forwardedFor };
  return { socket: { remoteAddress: peer }, connection: { remoteAddress: peer }, headers } as never;
}

describe('clientAddressFunction', () => {
  const forwarded = fakeRequest('127.0.0.1', '198.51.100.7, 203.0.113.5, 10.0.0.2');

  it('without trust, is the peer whatever the request claims', () => {
    expect(clientAddressFunction(false)(forwarded)).toBe('127.0.0.1');
    expect(clientAddressFunction()(forwarded)).toBe('127.0.0.1');
  });

  it('with true, is the left-most forwarded address', () => {
    expect(clientAddressFunction(true)(forwarded)).toBe('198.51.100.7');
  });

  it('with a hop count, steps back that many proxies', () => {
    expect(clientAddressFunction(1)(forwarded)).toBe('10.0.0.2');
    expect(clientAddressFunction(2)(forwarded)).toBe('203.0.113.5');
  });

  it('with addresses, stops at the first untrusted hop', () => {
    expect(clientAddressFunction(['loopback', '10.0.0.0/8'])(forwarded)).toBe('203.0.113.5');
    expect(clientAddressFunction(['192.0.2.1'])(forwarded)).toBe('127.0.0.1');
  });

  it('without a forwarding header, is the peer', () => {
    expect(clientAddressFunction(true)(fakeRequest('::1'))).toBe('::1');
  });
});
