import type { Origin, Sender } from './http-send.js';

/** Statuses whose answer has no body (a `Response` with one would throw). */
const NO_BODY = new Set([101, 204, 205, 304]);

/**
 * A `fetch` for the typed client (openapi-fetch) that sends over the CLI's own pool, so its
 * JSON requests share the upload's kept-alive connections and fail as the pool fails
 * (`ECONNREFUSED` on the error). Whole answers in memory: the JSON endpoints only.
 */
export function senderFetch(
  sender: Sender,
  origin: Origin,
): (request: Request) => Promise<Response> {
  return async (request) => {
    const url = new URL(request.url);
    // The sender puts the base URL's path prefix back in front.
    const path = url.pathname.slice(origin.pathPrefix.length) + url.search;
    const headers: Record<string, string> = {};
    request.headers.forEach((value, name) => (headers[name] = value));
    const body = request.body === null ? undefined : Buffer.from(await request.arrayBuffer());
    const answer = await sender.send(request.method, path, headers, body, request.signal);
    const empty = NO_BODY.has(answer.statusCode) || request.method === 'HEAD';
    return new Response(empty ? null : answer.text, { status: answer.statusCode });
  };
}
