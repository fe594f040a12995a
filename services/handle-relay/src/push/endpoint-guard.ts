import {
  isLocalhostName,
  isPrivateAddress,
  privateRefusingLookup,
  resolveHost,
  urlHost,
} from '@svc/envelope';

/**
 * A `net.connect` lookup that refuses private answers, so a host that resolved publicly at
 * subscribe time cannot be re-pointed at the internal network later (DNS rebinding).
 */
export const guardedLookup = privateRefusingLookup('push endpoint');

/**
 * Why a push endpoint is refused, or `undefined` when it is acceptable. Without
 * `allowPrivate`: `https:` only, and the host must not be (or resolve to) a private
 * address. A host that does not resolve now is accepted: delivery resolves it again
 * through the guarded lookup above, which refuses private answers at connect time.
 */
export async function endpointProblem(
  endpoint: string,
  allowPrivate: boolean,
): Promise<string | undefined> {
  let url: URL;
  try {
    url = new URL(endpoint);
  } catch {
    return 'endpoint must be an absolute URL';
  }
  if (allowPrivate) {
    return url.protocol === 'https:' || url.protocol === 'http:'
      ? undefined
      : 'endpoint must be an http: or https: URL';
  }
  if (url.protocol !== 'https:') return 'endpoint must be an https: URL';
  const host = urlHost(url);
  if (isLocalhostName(host)) {
    return 'endpoint must not resolve to a loopback, private or link-local address';
  }
  const addresses = await resolveHost(host);
  if (addresses?.some(isPrivateAddress)) {
    return 'endpoint must not resolve to a loopback, private or link-local address';
  }
  return undefined;
}
