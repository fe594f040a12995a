import {
  fromDatabaseError,
  isConnectionLost,
  isDatabaseOutOfSpace,
  isForeignKeyViolation,
  isUniqueViolation,
} from './pg-errors.js';

const pgError = (code: string, constraint?: string) =>
  Object.assign(new Error(`pg error ${code}`), { code, constraint });

describe('reading PostgreSQL errors', () => {
  it('recognises a unique violation, on one named constraint when asked', () => {
    expect(isUniqueViolation(pgError('23505', 'asset_pkey'))).toBe(true);
    expect(isUniqueViolation(pgError('23505', 'asset_pkey'), 'asset_pkey')).toBe(true);
    expect(isUniqueViolation(pgError('23505', 'asset_path_key'), 'asset_pkey')).toBe(false);
    expect(isUniqueViolation(pgError('23503'))).toBe(false);
  });

  it('recognises a foreign key violation, a lost connection and a full disk', () => {
    expect(isForeignKeyViolation(pgError('23503'))).toBe(true);
    expect(isConnectionLost(pgError('57P01'))).toBe(true);
    expect(isConnectionLost(pgError('08006'))).toBe(true);
    expect(isDatabaseOutOfSpace(pgError('53100'))).toBe(true);
    expect(isConnectionLost(pgError('23505'))).toBe(false);
  });

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
