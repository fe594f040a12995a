import { assetStoreError, handleRelayError, success } from './envelopes.js';
import { errors, fromDatabaseError, isUniqueViolation } from './errors.js';

const pgError = (code: string, constraint?: string) =>
  Object.assign(new Error(`pg error ${code}`), { code, constraint });

describe('isUniqueViolation', () => {
  it('recognises a Postgres unique violation', () => {
    expect(isUniqueViolation(pgError('23505', 'handle_pkey'))).toBe(true);
  });

  it('matches only the named constraint when one is given', () => {
    expect(isUniqueViolation(pgError('23505', 'handle_pkey'), 'handle_pkey')).toBe(true);
    expect(isUniqueViolation(pgError('23505', 'handle_primary_key'), 'handle_pkey')).toBe(false);
  });

  it.each([
    ['another SQLSTATE', pgError('23503')],
    ['a plain Error', new Error('23505')],
    ['null', null],
    ['undefined', undefined],
    ['a string', '23505'],
  ])('is false for %s', (_label, value) => {
    expect(isUniqueViolation(value)).toBe(false);
  });
});

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

  it.each([
    ['a missing table', pgError('42P01')],
    ['a lost connection', pgError('57P01')],
    ['an error without a code', new Error('boom')],
    ['a numeric code', Object.assign(new Error('x'), { code: 23505 })],
    ['null', null],
  ])('leaves %s unmapped, so it becomes a 500', (_label, value) => {
    expect(fromDatabaseError(value)).toBeUndefined();
  });
});

describe('envelopes', () => {
  it('renders the asset-store error and success shapes', () => {
    expect(assetStoreError(errors.notFound('asset not found'))).toEqual({
      status: 'error',
      error: 'asset not found',
    });
    expect(success({ hash: 'ab' })).toEqual({ status: 'success', data: { hash: 'ab' } });
    expect(success(null)).toEqual({ status: 'success', data: null });
  });

  it('renders the handle-relay error shape', () => {
    expect(handleRelayError(errors.conflict('handle already claimed'))).toEqual({
      error: { code: 'conflict', message: 'handle already claimed' },
    });
  });
});

describe('the shared catalogue', () => {
  it.each([
    [errors.badRequest('m'), 400, 'bad_request'],
    [errors.unauthorized('m'), 401, 'unauthorized'],
    [errors.forbidden('m'), 403, 'forbidden'],
    [errors.notFound(), 404, 'not_found'],
    [errors.methodNotAllowed(['GET']), 405, 'method_not_allowed'],
    [errors.conflict('m'), 409, 'conflict'],
    [errors.payloadTooLarge(), 413, 'payload_too_large'],
    [errors.tooManyRequests(1), 429, 'rate_limited'],
    [errors.internal(), 500, 'internal'],
    [errors.notImplemented('m'), 501, 'not_implemented'],
    [errors.unavailable('m'), 503, 'unavailable'],
  ])('%# has a stable status and code', (err, status, code) => {
    expect({ status: err.status, code: err.code }).toEqual({ status, code });
  });

  it('lists the allowed methods in the 405 Allow header', () => {
    expect(errors.methodNotAllowed(['GET', 'HEAD', 'POST']).headers).toEqual({
      Allow: 'GET, HEAD, POST',
    });
  });
});
