/** Types of sql-statements.mjs. */
export declare function splitSqlStatements(sql: string): string[];
