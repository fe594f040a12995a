import { describeS3, testS3 } from '@svc/testing';
import { useS3Blobs } from './test-app.js';

// openapi-uploads.test.ts again, every asset kept in a bucket on S3.
const s3 = testS3();
if (s3) {
  useS3Blobs(s3);
  await import('./openapi-uploads.test.js');
} else {
  describeS3('the OpenAPI upload operations on S3', () => undefined);
}
