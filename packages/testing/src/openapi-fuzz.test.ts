import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { fuzzOpenApi } from './openapi-fuzz.js';

/** A small service and its document: `GET /items/{id}` (1-10) and `POST /items` ({name}). */
const error = { type: 'object', required: ['error'], properties: { error: { type: 'string' } } };
const json = (schema: unknown) => ({ content: { 'application/json': { schema } } });
const document = {
  openapi: '3.1.0',
  info: { title: 'fuzz-self-test', version: '1' },
  paths: {
    '/items/{id}': {
      get: {
        operationId: 'getItem',
        parameters: [
          {
            name: 'id',
            in: 'path',
            required: true,
            schema: { type: 'integer', minimum: 1, maximum: 10 },
          },
        ],
        responses: {
          '200': {
            description: 'the item',
            ...json({
              type: 'object',
              required: ['id'],
              additionalProperties: false,
              properties: { id: { type: 'integer' } },
            }),
          },
          '400': { description: 'bad id', ...json(error) },
        },
      },
    },
    '/items': {
      post: {
        operationId: 'addItem',
        requestBody: {
          required: true,
          content: {
            'application/json': {
              schema: {
                type: 'object',
                required: ['name'],
                properties: { name: { type: 'string', maxLength: 8 } },
              },
            },
          },
        },
        responses: {
          '201': { description: 'added' },
          '400': { description: 'bad body', ...json(error) },
        },
      },
    },
  },
};

type Handler = (method: string, url: URL, body: string) => [number, unknown?];

/** Time given to find a planted bug; the fuzz stops at the first one. */
const BUG_HUNT_MS = 20_000;

/** The service doing what the document says, unless `bug` answers first. */
function service(bug: Handler = () => [0]): Handler {
  return (method, url, body) => {
    const answer = bug(method, url, body);
    if (answer[0]) return answer;
    if (method === 'GET') {
      const id = Number(url.pathname.split('/')[2]);
      return Number.isInteger(id) && id >= 1 && id <= 10 ? [200, { id }] : [400, { error: 'id' }];
    }
    try {
      const value = JSON.parse(body) as { name?: unknown };
      const ok = typeof value?.name === 'string' && [...value.name].length <= 8;
      return ok ? [201] : [400, { error: 'name' }];
    } catch {
      return [400, { error: 'json' }];
    }
  };
}

/**
 * Fuzzes `handler` for `timeLimitMs`. A bug is found at its first request, so the tests that
 * expect one get a generous limit: a loaded CI machine makes fewer requests in a given time.
 */
async function fuzz(handler: Handler, timeLimitMs = 1_500): Promise<unknown> {
  const server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk.toString()));
    req.on('end', () => {
      const [status, payload] = handler(req.method!, new URL(req.url!, 'http://x'), body);
      if (payload === undefined) res.writeHead(status).end();
      else
        res.writeHead(status, { 'Content-Type': 'application/json' }).end(JSON.stringify(payload));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  try {
    return await fuzzOpenApi({
      document,
      baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
      seed: 7,
      timeLimitMs,
    });
  } finally {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
}

describe('fuzzOpenApi', () => {
  it('passes a service that answers as its document says, reaching every operation', async () => {
    const report = (await fuzz(service())) as { statuses: Record<string, object> };
    expect(Object.keys(report.statuses).sort()).toEqual(['GET /items/{id}', 'POST /items']);
  });

  it('fails on a server error', async () => {
    const bug: Handler = (method, _url, body) => [
      method === 'POST' && body.includes('[') ? 500 : 0,
    ];
    await expect(fuzz(service(bug), BUG_HUNT_MS)).rejects.toThrow(/answered 500: a server error/);
  });

  it('fails on a status the document does not list', async () => {
    const bug: Handler = (method) => [method === 'POST' ? 202 : 0];
    await expect(fuzz(service(bug), BUG_HUNT_MS)).rejects.toThrow(
      /202: a status the document does not list/,
    );
  });

  it('fails on a body its schema refuses', async () => {
    const bug: Handler = (method, url) =>
      method === 'GET' && url.pathname === '/items/10' ? [200, { id: '10' }] : [0];
    await expect(fuzz(service(bug), BUG_HUNT_MS)).rejects.toThrow(/a body its schema refuses/);
  });

  it('fails when a request the document refuses is accepted', async () => {
    const bug: Handler = (method) => [method === 'POST' ? 201 : 0];
    await expect(fuzz(service(bug), BUG_HUNT_MS)).rejects.toThrow(
      /a request the document refuses \(.*\) was accepted/,
    );
  });

  it('fails when a request the document allows is refused with 400', async () => {
    const bug: Handler = (method, url) =>
      method === 'GET' && url.pathname === '/items/10' ? [400, { error: 'ten' }] : [0];
    await expect(fuzz(service(bug), BUG_HUNT_MS)).rejects.toThrow(
      /a request the document allows was refused/,
    );
  });
});
