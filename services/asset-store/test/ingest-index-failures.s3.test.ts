import { describeS3, testS3 } from '@svc/testing';
import { useS3Blobs } from './test-app.js';

// ingest-index-failures.test.ts again, every asset kept in a bucket on S3.
const s3 = testS3();
if (s3) {
  useS3Blobs(s3);
  await import('./ingest-index-failures.test.js');
} else {
  describeS3('ingests the index fails on S3', () => undefined);
}
