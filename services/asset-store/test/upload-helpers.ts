import http from 'node:http';

/** Waits until `check` holds, polling; throws after `ms`. */
export async function eventually(
  check: () => Promise<boolean> | boolean,
  ms = 3000,
): Promise<void> {
  const until = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > until) throw new Error('condition not reached in time');
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** A multipart upload whose `file` part announces `size` bytes; the caller writes them. */
export function startUpload(port: number, size: number): http.ClientRequest {
  const boundary = 'x-boundary-1';
  const head =
    `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="cut.bin"\r\n` +
    'Content-Type: application/octet-stream\r\n\r\n';
  const req = http.request({
    host: '127.0.0.1',
    port,
    method: 'POST',
    path: '/api/v1/can/0/ingest',
    headers: {
      'Content-Type': `multipart/form-data; boundary=${boundary}`,
      'Content-Length': String(head.length + size + 100),
    },
  });
  req.on('error', () => undefined);
  req.write(head);
  return req;
}
