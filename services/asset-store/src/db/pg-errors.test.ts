import { fromDatabaseError } from './pg-errors.js';

const pgError = (code: string, constraint?: string) =>
  Object.assign(new Error(`pg error ${code}`), { code, constraint });

describe('database errors in the asset-store catalogue', () => {
  it.each([
    ['23505', 409, 'already exists'],
    ['22P02', 400, 'invalid value'],
    ['22003', 400, 'invalid value'],
    ['23514', 400, 'invalid value'],
    ['53100', 507, 'insufficient storage: the server is out of disk space'],
  ])('answers %s with %i', (code, status, message) => {
    expect(fromDatabaseError(pgError(code))).toMatchObject({ status, message });
  });

  it.each([
    ['a missing table', pgError('42P01')],
    ['an error without a code', new Error('boom')],
    ['a numeric code', Object.assign(new Error('x'), { code: 23505 })],
    ['null', null],
  ])('leaves %s unknown, so it becomes a 500', (_label, value) => {
    expect(fromDatabaseError(value)).toBeUndefined();
  });

  it.each([
    ['an admin shutdown', pgError('57P01')],
    ['a server that cannot accept now', pgError('57P03')],
    [
      'a refused connection',
      Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' }),
    ],
    ['a session that died', new Error('Connection terminated unexpectedly')],
  ])('answers %s with 503 and Retry-After', (_label, value) => {
    const answer = fromDatabaseError(value);
    expect(answer?.status).toBe(503);
    expect(answer?.headers).toEqual({ 'Retry-After': '5' });
  });
});
