import pg from 'pg';

/** PostgreSQL's type oids for int8 and numeric. */
export const INT8_OID = 20;
export const NUMERIC_OID = 1700;

/**
 * Per-client parsers (never the global pg.types): int8/numeric as numbers, the rest as pg
 * does. They hold epoch ms, counts and sequence numbers, all far below 2^53.
 */
export const numericTypes: pg.CustomTypesConfig = {
  getTypeParser: ((oid: number, format?: 'text' | 'binary') => {
    if (oid === INT8_OID || oid === NUMERIC_OID) return Number;
    const parse: unknown = pg.types.getTypeParser(oid, format ?? 'text');
    return parse;
  }) as pg.CustomTypesConfig['getTypeParser'],
};

/** The same rule for PGlite, which takes its parsers by oid. */
export const pgliteNumericParsers = { [INT8_OID]: Number, [NUMERIC_OID]: Number };
