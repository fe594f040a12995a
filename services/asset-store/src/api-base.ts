/** Every asset endpoint's prefix: API version 1, container 0 (the only container). */
export const API_BASE = '/api/v1/can/0';
