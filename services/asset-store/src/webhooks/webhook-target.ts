import { isPrivateAddress, resolveHost, urlHost } from '@svc/envelope';

/**
 * Why `url` may not be a webhook's target now, or undefined: not http(s), or a host that
 * does not resolve, or resolves to a private, loopback or link-local address.
 */
export async function targetProblem(url: URL, allowPrivate: boolean): Promise<string | undefined> {
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return 'expected an http or https URL';
  if (allowPrivate) return undefined;
  const host = urlHost(url);
  const addresses = await resolveHost(host);
  if (!addresses) return `its host ${host} does not resolve`;
  const bad = addresses.find(isPrivateAddress);
  return bad
    ? `its host ${host} resolves to a private, loopback or link-local address (${bad})`
    : undefined;
}
