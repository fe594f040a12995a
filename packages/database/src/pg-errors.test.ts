import {
  isConnectionLost,
  isDatabaseOutOfSpace,
  isDatabaseUnavailable,
  isForeignKeyViolation,
  isRefusedValue,
  isUniqueViolation,
  sqlStateOf,
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

  it.each([
    ['another SQLSTATE', pgError('23503')],
    ['a plain Error', new Error('23505')],
    ['null', null],
    ['undefined', undefined],
    ['a string', '23505'],
    ['a numeric code', Object.assign(new Error('x'), { code: 23505 })],
  ])('is no unique violation for %s', (_label, value) => {
    expect(isUniqueViolation(value)).toBe(false);
  });

  it('recognises a foreign key violation, a lost connection and a full disk', () => {
    expect(isForeignKeyViolation(pgError('23503'))).toBe(true);
    expect(isConnectionLost(pgError('57P01'))).toBe(true);
    expect(isConnectionLost(pgError('08006'))).toBe(true);
    expect(isDatabaseOutOfSpace(pgError('53100'))).toBe(true);
    expect(isConnectionLost(pgError('23505'))).toBe(false);
  });

  it.each(['22P02', '22003', '23514'])('counts %s as a value the client sent', (code) => {
    expect(isRefusedValue(pgError(code))).toBe(true);
  });

  it('reads the SQLSTATE only when it is a string', () => {
    expect(sqlStateOf(pgError('42P01'))).toBe('42P01');
    expect(sqlStateOf(Object.assign(new Error('x'), { code: 23505 }))).toBeUndefined();
    expect(sqlStateOf('23505')).toBeUndefined();
    expect(sqlStateOf(null)).toBeUndefined();
  });

  it.each([
    ['an admin shutdown', pgError('57P01')],
    ['a server that cannot accept now', pgError('57P03')],
    [
      'a refused connection',
      Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' }),
    ],
    ['a session that died', new Error('Connection terminated unexpectedly')],
  ])('counts %s as a database that does not answer', (_label, value) => {
    expect(isDatabaseUnavailable(value)).toBe(true);
  });

  it.each([
    ['a unique violation', pgError('23505')],
    ['an error without a code', new Error('boom')],
    ['null', null],
  ])('does not count %s as unavailable', (_label, value) => {
    expect(isDatabaseUnavailable(value)).toBe(false);
  });
});
