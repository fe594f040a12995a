import { S3ServiceException } from '@aws-sdk/client-s3';
import { networkFailureOf, type S3Outcomes } from './s3-client.js';

/** A known state is trusted this long; past it, health asks S3 once (one HEAD of the bucket). */
export const REACHABILITY_TTL_MS = 2_000;
/** Health waits this long for that question; no answer within it is an answer too. */
export const PROBE_TIMEOUT_MS = 2_000;

/** What S3 last did, and when. */
type Known = { problem: string | undefined; at: number };

/** What the tracker needs: how to ask S3 (bounded by `signal`), where it is, and a clock. */
export interface ReachabilityOptions {
  /** One cheap call that S3 answers when it can serve (HEAD of the bucket). */
  probe: (signal: AbortSignal) => Promise<void>;
  /** How S3 is named in a problem: `S3 at <endpoint> (bucket <bucket>)`. */
  where: string;
  clock?: () => number;
  ttlMs?: number;
  probeTimeoutMs?: number;
}

/**
 * Whether the store can reach S3, for `/healthz`, kept cheap: every S3 call the service makes
 * (ingests, downloads, the bucket watch) tells its outcome, so under traffic health costs S3
 * nothing, and an outage is known at the first call that meets it. Only when nothing was heard
 * for `ttlMs` does a health check ask S3 itself, once for however many checks arrive meanwhile.
 */
export class S3Reachability implements S3Outcomes {
  #known: Known | undefined;
  #probing: Promise<string | undefined> | undefined;
  readonly #clock: () => number;
  readonly #ttlMs: number;
  readonly #probeTimeoutMs: number;

  constructor(private readonly options: ReachabilityOptions) {
    this.#clock = options.clock ?? Date.now;
    this.#ttlMs = options.ttlMs ?? REACHABILITY_TTL_MS;
    this.#probeTimeoutMs = options.probeTimeoutMs ?? PROBE_TIMEOUT_MS;
  }

  answered(): void {
    this.#known = { problem: undefined, at: this.#clock() };
  }

  failed(err: unknown): void {
    this.#known = { problem: describeS3Problem(this.options.where, err), at: this.#clock() };
  }

  /** Why S3 cannot serve now (`S3 at … does not answer: …`), or undefined when it can. */
  async problem(): Promise<string | undefined> {
    const known = this.#known;
    if (known && this.#clock() - known.at < this.#ttlMs) return known.problem;
    this.#probing ??= this.#probe().finally(() => (this.#probing = undefined));
    return this.#probing;
  }

  async #probe(): Promise<string | undefined> {
    const signal = AbortSignal.timeout(this.#probeTimeoutMs);
    try {
      await this.options.probe(signal);
      this.answered();
    } catch (err) {
      // Any failure of the probe counts (a missing bucket, refused credentials): health says
      // the store cannot serve, with S3's reason.
      this.#known = {
        problem: signal.aborted
          ? `${this.options.where} does not answer (nothing within ${this.#probeTimeoutMs} ms)`
          : describeS3Problem(this.options.where, err),
        at: this.#clock(),
      };
    }
    return this.#known?.problem;
  }
}

/** How S3 is named in problems and logs: `S3 at <endpoint> (bucket <bucket>)`. */
export function s3Where(settings: { endpoint?: string; bucket: string }): string {
  return `S3 at ${settings.endpoint ?? 'AWS'} (bucket ${settings.bucket})`;
}

/** The problem an S3 failure shows, in one line (`S3 at … does not answer (ECONNREFUSED)`). */
export function describeS3Problem(where: string, err: unknown): string {
  const cause = (err as { cause?: unknown } | undefined)?.cause ?? err;
  if (cause instanceof S3ServiceException) {
    const status = cause.$metadata.httpStatusCode ?? 'no status';
    return `${where} answers ${status} ${cause.name}`;
  }
  if (cause instanceof Error && cause.name === 'TimeoutError') {
    return `${where} does not answer (timed out)`;
  }
  const reason =
    networkFailureOf(cause) ?? (cause instanceof Error ? cause.message : String(cause));
  return `${where} does not answer (${reason})`;
}
