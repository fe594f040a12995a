export { createDurablePGlite } from './durable-pglite.js';
export { lockFolder } from './folder-lock.js';
export { migrateToLatest } from './migrate.js';
export { databaseTarget, openDatabase } from './open-database.js';
export type { DatabaseHandle, DatabaseTarget } from './open-database.js';
export { pgliteDialect } from './pglite-dialect.js';
export { PipelinedSession } from './pipelined-session.js';
export { preparedAs } from './prepared.js';
export { GroupCommit, takeFront } from './group-commit.js';
export type { GroupCommitPolicy, TakeFrontLimits } from './group-commit.js';
export {
  isConnectionLost,
  isDatabaseOutOfSpace,
  isForeignKeyViolation,
  isRefusedValue,
  isUniqueViolation,
  sqlStateOf,
} from './pg-errors.js';
