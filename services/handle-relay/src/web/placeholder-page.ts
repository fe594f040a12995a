/** Every public endpoint of the spec, as the placeholder page lists them. */
export const PUBLIC_ENDPOINTS: readonly (readonly [method: string, path: string])[] = [
  ['GET', '/'],
  ['GET', '/v1/healthz'],
  ['GET', '/v1/u/{handle}'],
  ['GET', '/v1/by-primary/{primary}'],
  ['POST', '/v1/register'],
  ['PUT', '/v1/profile/{handle}/proofs'],
  ['POST', '/v1/messages'],
  ['GET', '/v1/inbox/{handle}'],
  ['GET', '/v1/inbox/{handle}/stream'],
  ['GET', '/v1/push/vapid-public-key'],
  ['POST', '/v1/push/subscribe/{handle}'],
  ['POST', '/v1/push/unsubscribe/{handle}'],
  ['GET', '/.well-known/webfinger'],
  ['POST', '/internal/nats/auth'],
  ['GET', '/openapi.json'],
];

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

/** The built-in page at `/` when no `web_dir` is configured. */
export function placeholderPage(server: string, version: string): string {
  const rows = PUBLIC_ENDPOINTS.map(
    ([method, path]) => `      <li><code>${method} ${escapeHtml(path)}</code></li>`,
  ).join('\n');
  return `<!doctype html>
<html lang="en">
  <head>
    <meta charset="utf-8">
    <title>handle-relay on ${escapeHtml(server)}</title>
  </head>
  <body>
    <h1>handle-relay</h1>
    <p>Server <strong>${escapeHtml(server)}</strong>, version <strong>${escapeHtml(version)}</strong>.</p>
    <p>No client application is configured (<code>web_dir</code>). Public API:</p>
    <ul>
${rows}
    </ul>
  </body>
</html>
`;
}
