/** The live figures of a running job, as the API shows them. */
export interface ProgressView {
  total: number | null;
  done: number;
  bytes_total: number | null;
  bytes_done: number;
  /** Items (files) per second since the job started. */
  rate: number | null;
  /** Bytes per second since the job started; null when the job reads no bytes. */
  bytes_rate: number | null;
  /** Seconds left at the rate so far; null while unknown. */
  eta_s: number | null;
}

/**
 * A running job's counts: files done, and bytes done counting the files still being read
 * (so a long file moves the figure while it is hashed, not only once at its end).
 */
export class JobProgress {
  total: number | null = null;
  done = 0;
  bytesTotal: number | null = null;
  /** Whether the job's work is measured in bytes (verify is; rebuild reads attributes). */
  readonly countsBytes: boolean;
  #bytesFinished = 0;
  readonly #reading = new Map<string, number>();

  constructor(countsBytes: boolean) {
    this.countsBytes = countsBytes;
  }

  /** `bytes` more of the item `key` were read. */
  read(key: string, bytes: number): void {
    this.#reading.set(key, (this.#reading.get(key) ?? 0) + bytes);
  }

  /** Item `key`, of `bytes` bytes, is done. Rows added since the start grow the totals. */
  finished(key: string, bytes: number): void {
    this.#reading.delete(key);
    this.#bytesFinished += bytes;
    this.done++;
    if (this.total !== null && this.done > this.total) this.total = this.done;
    if (this.bytesTotal !== null && this.#bytesFinished > this.bytesTotal) {
      this.bytesTotal = this.#bytesFinished;
    }
  }

  /** Bytes done, those of files still being read included, never above the total. */
  get bytesDone(): number {
    let bytes = this.#bytesFinished;
    for (const partial of this.#reading.values()) bytes += partial;
    return this.bytesTotal === null ? bytes : Math.min(bytes, this.bytesTotal);
  }

  /**
   * The figures now, with the rates and ETA they give after `elapsedMs` of work (to now
   * while the job runs, to its end once ended, as `jobFromRow` computes them too).
   */
  view(elapsedMs: number): ProgressView {
    const seconds = elapsedMs / 1000;
    const bytesDone = this.bytesDone;
    const rate = seconds > 0 ? this.done / seconds : null;
    const bytesRate = this.countsBytes && seconds > 0 ? bytesDone / seconds : null;
    let eta: number | null = null;
    if (this.bytesTotal !== null && bytesRate) eta = (this.bytesTotal - bytesDone) / bytesRate;
    else if (this.total !== null && rate) eta = (this.total - this.done) / rate;
    return {
      total: this.total,
      done: this.done,
      bytes_total: this.bytesTotal,
      bytes_done: bytesDone,
      rate: rate === null ? null : round2(rate),
      bytes_rate: bytesRate === null ? null : Math.round(bytesRate),
      eta_s: eta === null ? null : Math.ceil(Math.max(0, eta)),
    };
  }
}

function round2(value: number): number {
  return Math.round(value * 100) / 100;
}
