import { assetStoreError, handleRelayError, success } from './envelopes.js';
import { errors } from './errors.js';

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
