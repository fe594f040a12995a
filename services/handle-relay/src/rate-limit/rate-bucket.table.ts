/** `rate_bucket`: one route's token bucket for one client address (see its migration). */
export interface RateBucketTable {
  route: string;
  address: string;
  tokens: number;
  /** Epoch ms of the last take. */
  updated_at: number;
  /** Whether the last take got a token. */
  allowed: boolean;
}
