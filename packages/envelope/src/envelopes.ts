import type { AppError } from './errors.js';

/** How one service shapes its error bodies. */
export type ErrorRenderer = (err: AppError) => unknown;

/** asset-store: `{"status":"error","error":"<message>"}`. */
export const assetStoreError: ErrorRenderer = (err) => ({ status: 'error', error: err.message });

/** asset-store success: `{"status":"success","data":...}`. */
export function success<T>(data: T): { status: 'success'; data: T } {
  return { status: 'success', data };
}

/** handle-relay: `{"error":{"code","message"}}`. */
export const handleRelayError: ErrorRenderer = (err) => ({
  error: { code: err.code, message: err.message },
});
