// Types for generate-postgres-schema.mjs (plain JavaScript, run by postinstall before TypeScript tooling exists).
export declare const sqliteSchemaPath: string;
export declare const postgresSchemaPath: string;
export declare const derivePostgresSchema: (sqliteSchema: string) => string;
