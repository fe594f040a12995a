import { fromDatabaseError } from './pg-errors.js';

const pgError = (code: string, constraint?: string) =>
  Object.assign(new Error(`pg error ${code}`), { code, constraint });

describe('fromDatabaseError', () => {
  it('maps a unique violation to 409 conflict', () => {
    expect(fromDatabaseError(pgError('23505'))).toMatchObject({
      status: 409,
      code: 'conflict',
      message: 'already exists',
    });
  });

  it.each(['22P02', '22003', '23514'])('maps %s (a value the client sent) to 400', (code) => {
    expect(fromDatabaseError(pgError(code))).toMatchObject({
      status: 400,
      code: 'bad_request',
      message: 'invalid value',
    });
  });

  it('maps a full disk to 507, which the error middleware still logs', () => {
    expect(fromDatabaseError(pgError('53100'))).toMatchObject({
      status: 507,
      code: 'insufficient_storage',
    });
  });

  it.each([
    ['a missing table', pgError('42P01')],
    ['an error without a code', new Error('boom')],
    ['a numeric code', Object.assign(new Error('x'), { code: 23505 })],
    ['null', null],
  ])('leaves %s unmapped, so it becomes a 500', (_label, value) => {
    expect(fromDatabaseError(value)).toBeUndefined();
  });

  it('answers a database that does not answer with 503 and Retry-After', () => {
    const answer = fromDatabaseError(new Error('Connection terminated unexpectedly'));
    expect(answer?.status).toBe(503);
    expect(answer?.headers).toEqual({ 'Retry-After': '5' });
  });
});
