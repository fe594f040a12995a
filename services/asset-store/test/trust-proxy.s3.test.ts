import { describeS3, testS3 } from '@svc/testing';
import { useS3Blobs } from './test-app.js';

// trust-proxy.test.ts again, every asset kept in a bucket on S3.
const s3 = testS3();
if (s3) {
  useS3Blobs(s3);
  await import('./trust-proxy.test.js');
} else {
  describeS3('trust_proxy on S3', () => undefined);
}
