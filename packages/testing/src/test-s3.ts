/** Set by the global setup when this run has no S3: why, for the skip message. */
const SKIP_ENV = 'TEST_S3_SKIPPED';

/** An S3 server for tests, as the global setup chose it. */
export interface TestS3 {
  endpoint: string;
  region: string;
  accessKeyId: string;
  secretAccessKey: string;
  forcePathStyle: boolean;
}

/**
 * This run's S3 server, or undefined when there is none: `S3_ENDPOINT` (with `S3_REGION`,
 * `S3_ACCESS_KEY_ID`, `S3_SECRET_ACCESS_KEY`, `S3_FORCE_PATH_STYLE`) as the Ceph tool or a
 * developer sets them, or the MinIO the global setup started and described the same way.
 */
export function testS3(): TestS3 | undefined {
  const endpoint = process.env.S3_ENDPOINT;
  if (!endpoint) return undefined;
  return {
    endpoint,
    region: process.env.S3_REGION ?? 'us-east-1',
    accessKeyId: process.env.S3_ACCESS_KEY_ID ?? '',
    secretAccessKey: process.env.S3_SECRET_ACCESS_KEY ?? '',
    forcePathStyle: process.env.S3_FORCE_PATH_STYLE !== 'false',
  };
}

let told = false;

/**
 * `describe` for suites that need S3: run when the run has an S3 server, else skipped
 * with one message saying why (no `S3_ENDPOINT`, and no Docker engine for MinIO).
 */
export function describeS3(name: string, body: (s3: TestS3) => void): void {
  const s3 = testS3();
  if (s3) {
    describe(name, () => body(s3));
    return;
  }
  if (!told) {
    told = true;
    console.log(
      `S3 suites skipped: ${process.env[SKIP_ENV] ?? 'no S3_ENDPOINT'} ` +
        '(set S3_ENDPOINT, e.g. from ../shared/tools/ceph-s3.sh, or TEST_PULL_IMAGES=1 where Docker can pull MinIO)',
    );
  }
  // Skipped without an S3 server (no S3_ENDPOINT, no Docker for MinIO); the line above says
  // why once per file, and CI always has the Ceph gateway.
  describe.skip(name, () => {
    it('needs an S3 server', () => undefined);
  });
}
