/** The store answered with an error envelope, or with something that was not an answer of it. */
export class ApiError extends Error {
  constructor(
    /** The HTTP status; 0 when the answer was not the store's JSON. */
    readonly status: number,
    message: string,
  ) {
    super(message);
    this.name = 'ApiError';
  }
}

/** The message of an error answer: its envelope's `error`, else the start of its text. */
export function errorMessage(body: unknown, status: number): string {
  if (body && typeof body === 'object' && typeof (body as { error?: unknown }).error === 'string') {
    return (body as { error: string }).error;
  }
  if (typeof body === 'string' && body.trim() !== '') return body.slice(0, 200);
  return `HTTP ${status}`;
}
