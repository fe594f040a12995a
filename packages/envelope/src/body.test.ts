import type { IncomingMessage, ServerResponse } from 'node:http';
import { gzipSync } from 'node:zlib';
import request from 'supertest';
import { readBodyBytes, readBodyText } from './body.js';
import { AppError } from './errors.js';

const LIMIT = 64;

/** Answers what the reader made of the body: `{text}` or `{bytes}`, or the error's status. */
function server(read: typeof readBodyText | typeof readBodyBytes) {
  return (req: IncomingMessage, res: ServerResponse) => {
    read(req, { limit: LIMIT }).then(
      (body) => {
        res.setHeader('Content-Type', 'application/json');
        const seen =
          body === undefined
            ? { none: true }
            : Buffer.isBuffer(body)
              ? { bytes: body.toString('hex') }
              : { text: body };
        res.end(JSON.stringify(seen));
      },
      (err: unknown) => {
        const e = err instanceof AppError ? err : undefined;
        res.statusCode = e?.status ?? 500;
        res.setHeader('Content-Type', 'application/json');
        res.end(JSON.stringify({ code: e?.code, message: e?.message ?? String(err) }));
      },
    );
  };
}

describe('readBodyText, as express.json reads a body', () => {
  const app = server(readBodyText);

  it('answers undefined for a request without a body', async () => {
    const res = await request(app).get('/').expect(200);
    expect(res.body).toEqual({ none: true });
  });

  it('reads UTF-8 whatever the content type, and drops a byte order mark', async () => {
    const res = await request(app)
      .post('/')
      .set('Content-Type', 'text/plain')
      .send('\ufeff{"a":1}');
    expect(res.body).toEqual({ text: '{"a":1}' });
  });

  it('inflates gzip and decodes another UTF charset', async () => {
    const gz = await request(app)
      .post('/')
      .set('Content-Encoding', 'gzip')
      .set('Content-Type', 'text/plain')
      .send(gzipSync('{"z":true}'));
    expect([gz.status, gz.text]).toEqual([200, JSON.stringify({ text: '{"z":true}' })]);
    const utf16 = await request(app)
      .post('/')
      .set('Content-Type', 'text/plain; charset=utf-16le')
      .send(Buffer.from('{"é":2}', 'utf16le'));
    expect(utf16.body).toEqual({ text: '{"é":2}' });
  });

  it.each([
    ['a charset JSON does not allow', { 'Content-Type': 'application/json; charset=latin1' }],
    ['an unknown content encoding', { 'Content-Encoding': 'x-unknown' }],
    ['an encoding named like an object member', { 'Content-Encoding': 'constructor' }],
  ])('refuses %s with 415', async (_what, headers) => {
    const res = await request(app).post('/').set(headers).send('{}').expect(415);
    expect(res.body).toEqual({
      code: 'unsupported_media_type',
      message: 'unsupported body encoding',
    });
  });

  it('refuses a body past the limit with 413, declared or streamed', async () => {
    const big = 'x'.repeat(LIMIT + 1);
    const declared = await request(app).post('/').send(big).expect(413);
    expect(declared.body).toEqual({ code: 'payload_too_large', message: 'request body too large' });
    const streamed = await request(app)
      .post('/')
      .set('Content-Encoding', 'gzip')
      .send(gzipSync(big))
      .expect(413);
    expect(streamed.body).toEqual({ code: 'payload_too_large', message: 'request body too large' });
  });

  it('answers broken compressed data 400', async () => {
    const res = await request(app)
      .post('/')
      .set('Content-Encoding', 'gzip')
      .send(Buffer.from('not gzip'))
      .expect(400);
    expect(res.body).toEqual({ code: 'bad_request', message: 'incorrect header check' });
  });
});

describe('readBodyBytes, as express.raw reads a body', () => {
  const app = server(readBodyBytes);

  it('keeps the bytes as sent, any charset', async () => {
    const res = await request(app)
      .post('/')
      .set('Content-Type', 'text/plain; charset=latin1')
      .send(Buffer.from([0xe9, 0x41]));
    expect(res.body).toEqual({ bytes: 'e941' });
  });

  it('answers an empty body as no bytes, and no body as undefined', async () => {
    expect((await request(app).post('/').send('')).body).toEqual({ bytes: '' });
    expect((await request(app).get('/')).body).toEqual({ none: true });
  });
});
