import { endpointProblem } from './endpoint-guard.js';

describe('push endpoint guard', () => {
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
