export { createTestDatabase, testDatabaseMode } from './test-database.js';
export type { TestDatabase, TestDatabaseTarget } from './test-database.js';
export { useFileFixture } from './file-fixture.js';
export { TcpProxy } from './tcp-proxy.js';
export { useDatabaseOutage } from './database-outage.js';
export type { DatabaseOutage } from './database-outage.js';
export { describeS3, testS3 } from './test-s3.js';
export { describeNats, testNatsUrl } from './test-nats.js';
export type { TestS3 } from './test-s3.js';
