import { createMetrics, type Metrics } from '@svc/envelope';
import { Counter, Gauge, Histogram } from 'prom-client';

/** The routes an asset comes in by; `tus` is counted by the resumable-upload feature. */
export type IngestRoute = 'form' | 'data' | 'tus';

/** What ingest reports. */
export interface IngestMetrics {
  /** One asset stored through `route`, of `bytes` bytes. */
  ingested(route: IngestRoute, bytes: number): void;
}

/** What the verifier reports. */
export interface VerifierMetrics {
  /** One file hashed (scrub, change or read check), of `bytes` bytes. */
  fileChecked(bytes: number): void;
  /** An asset newly flagged corrupted: its content differs, or its file is gone. */
  corruptionFound(state: 'mismatch' | 'missing'): void;
  /** A full scrub ran to its end (not cut short), in this many seconds. */
  scrubFinished(seconds: number): void;
  /** A change in the storage root was checked this long after it was first seen. */
  changeChecked(lagSeconds: number): void;
}

/** What the thumbnail service reports. */
export interface ThumbnailMetrics {
  cacheHit(): void;
  cacheMiss(): void;
  /** One JPEG rendered (not a placeholder), in this many seconds. */
  rendered(seconds: number): void;
}

/** Assets and their bytes in one state, as one aggregate query over the index finds them. */
export interface AssetTotals {
  is_trashed: boolean;
  is_corrupted: boolean;
  assets: number;
  bytes: number;
}

/** A running job's progress, as the job gauges show it. */
export interface JobGaugeSample {
  kind: string;
  total: number | null;
  done: number;
  bytes_total: number | null;
  bytes_done: number;
}

/** Where the scrape-time gauges read from; set once the app has built its services. */
export interface MetricSources {
  assetTotals(): Promise<AssetTotals[]>;
  runningJobs(): JobGaugeSample[];
}

const JOB_KINDS = ['verify', 'rebuild'];

/**
 * The asset-store's `/metrics`: the shared HTTP series (`@svc/envelope`) plus the domain
 * ones. One instance per app, built by `main.ts` (the verifier runs before the app exists)
 * or by `createApp` when none is given.
 */
export class AssetMetrics implements IngestMetrics, VerifierMetrics, ThumbnailMetrics {
  /** The registry, the request-duration middleware and the `/metrics` handler. */
  readonly http: Metrics = createMetrics('asset_store');
  #sources: MetricSources | undefined;

  readonly #ingests = this.#counter('ingests_total', 'Assets stored, by route', ['route']);
  readonly #ingestedBytes = this.#counter('ingested_bytes_total', 'Bytes stored, by route', [
    'route',
  ]);
  readonly #filesChecked = this.#counter(
    'verifier_files_checked_total',
    'Files the verifier hashed (scrubs, change checks, read checks)',
  );
  readonly #bytesChecked = this.#counter(
    'verifier_bytes_checked_total',
    'Bytes of the files the verifier hashed',
  );
  readonly #corruptions = this.#counter(
    'verifier_corruptions_total',
    'Assets newly flagged corrupted, by what was found (mismatch, missing)',
    ['state'],
  );
  readonly #lastScrub = this.#gauge(
    'verifier_last_full_scrub_timestamp_seconds',
    'When the last full scrub ended (Unix time); 0 before the first',
  );
  readonly #lastScrubDuration = this.#gauge(
    'verifier_last_full_scrub_duration_seconds',
    'How long the last full scrub took',
  );
  readonly #changeLag = new Histogram({
    name: 'asset_store_verifier_change_check_lag_seconds',
    help: 'From a change in the storage root being seen to its check being done',
    buckets: [0.25, 0.5, 1, 2, 3, 5, 10, 30],
    registers: [this.http.registry],
  });
  readonly #rendered = this.#counter('thumbnails_rendered_total', 'Thumbnails rendered as JPEG');
  readonly #cacheHits = this.#counter('thumbnail_cache_hits_total', 'Thumbnails found cached');
  readonly #cacheMisses = this.#counter(
    'thumbnail_cache_misses_total',
    'Thumbnails looked up in the cache and not found',
  );
  readonly #renderTime = new Histogram({
    name: 'asset_store_thumbnail_render_duration_seconds',
    help: 'Time to render one thumbnail',
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5],
    registers: [this.http.registry],
  });

  constructor() {
    const registers = [this.http.registry];
    const labelNames = ['trashed', 'corrupted'] as const;
    // Both state gauges come from one read of the kept counts per scrape, shared by the two
    // collects. While the index does not answer they keep their last values, so `/metrics`
    // still answers (with the process series) during an outage.
    let pending: Promise<AssetTotals[]> | undefined;
    const totals = () => {
      pending ??= (this.#sources?.assetTotals() ?? Promise.resolve([])).finally(() => {
        pending = undefined;
      });
      return pending;
    };
    const fill = async (gauge: Gauge<'trashed' | 'corrupted'>, key: 'assets' | 'bytes') => {
      const rows = await totals().catch(() => undefined);
      if (!rows) return;
      for (const trashed of ['false', 'true']) {
        for (const corrupted of ['false', 'true']) gauge.set({ trashed, corrupted }, 0);
      }
      for (const row of rows) {
        const labels = { trashed: String(row.is_trashed), corrupted: String(row.is_corrupted) };
        gauge.set(labels, row[key]);
      }
    };
    new Gauge({
      name: 'asset_store_assets',
      help: 'Assets in the index, by trashed and corrupted',
      labelNames,
      registers,
      async collect() {
        await fill(this, 'assets');
      },
    });
    new Gauge({
      name: 'asset_store_asset_bytes',
      help: 'Bytes of the assets in the index, by trashed and corrupted',
      labelNames,
      registers,
      async collect() {
        await fill(this, 'bytes');
      },
    });
    const runningJobs = () => this.#sources?.runningJobs() ?? [];
    const jobGauge = (name: string, help: string, read: (job: JobGaugeSample) => number | null) =>
      new Gauge({
        name: `asset_store_job_${name}`,
        help,
        labelNames: ['kind'],
        registers,
        collect() {
          this.reset();
          for (const job of runningJobs()) {
            const value = read(job);
            if (value !== null) this.set({ kind: job.kind }, value);
          }
        },
      });
    new Gauge({
      name: 'asset_store_job_running',
      help: 'Jobs running now, by kind',
      labelNames: ['kind'],
      registers,
      collect() {
        const running = runningJobs();
        for (const kind of JOB_KINDS) {
          this.set({ kind }, running.filter((job) => job.kind === kind).length);
        }
      },
    });
    jobGauge('items_done', 'Files the running job has done', (j) => j.done);
    jobGauge('items', 'Files the running job has to do, once known', (j) => j.total);
    jobGauge('bytes_done', 'Bytes the running job has done', (j) => j.bytes_done);
    jobGauge('bytes', 'Bytes the running job has to do, once known', (j) => j.bytes_total);
    // Every labelled series from the first scrape on, so a rate() sees its first increase.
    for (const route of ['form', 'data', 'tus']) {
      this.#ingests.inc({ route }, 0);
      this.#ingestedBytes.inc({ route }, 0);
    }
    this.#corruptions.inc({ state: 'mismatch' }, 0);
    this.#corruptions.inc({ state: 'missing' }, 0);
  }

  /** Gives the scrape-time gauges their sources (the index, the jobs). */
  collectFrom(sources: MetricSources): void {
    this.#sources = sources;
  }

  ingested(route: IngestRoute, bytes: number): void {
    this.#ingests.inc({ route });
    this.#ingestedBytes.inc({ route }, bytes);
  }

  fileChecked(bytes: number): void {
    this.#filesChecked.inc();
    this.#bytesChecked.inc(bytes);
  }

  corruptionFound(state: 'mismatch' | 'missing'): void {
    this.#corruptions.inc({ state });
  }

  scrubFinished(seconds: number): void {
    this.#lastScrub.set(Date.now() / 1000);
    this.#lastScrubDuration.set(seconds);
  }

  changeChecked(lagSeconds: number): void {
    this.#changeLag.observe(lagSeconds);
  }

  cacheHit(): void {
    this.#cacheHits.inc();
  }

  cacheMiss(): void {
    this.#cacheMisses.inc();
  }

  rendered(seconds: number): void {
    this.#rendered.inc();
    this.#renderTime.observe(seconds);
  }

  #counter<L extends string = never>(name: string, help: string, labelNames: L[] = []) {
    return new Counter<L>({
      name: `asset_store_${name}`,
      help,
      labelNames,
      registers: [this.http.registry],
    });
  }

  #gauge(name: string, help: string) {
    return new Gauge({ name: `asset_store_${name}`, help, registers: [this.http.registry] });
  }
}
