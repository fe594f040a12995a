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

  it('answers a database that does not answer with 503 and Retry-After', () => {
    const answer = fromDatabaseError(new Error('Connection terminated unexpectedly'));
    expect(answer?.status).toBe(503);
    expect(answer?.headers).toEqual({ 'Retry-After': '5' });
  });
});
