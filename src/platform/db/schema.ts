/**
 * The relational schema, shared by PGlite and PostgreSQL: every table, from the core tables
 * (`schema-core.ts`) and one file per area that references them. drizzle-kit generates the SQL
 * migrations in `drizzle/` from these files (`npm run db:generate`). This file only re-exports, so
 * that no schema file imports it back (no module cycle: each area's file imports `schema-core.ts`).
 */
export * from './schema/consent.js';
export * from './schema/core.js';
export * from './schema/federation.js';
export * from './schema/notifications.js';
export * from './schema/oidc.js';
export * from './schema/saml.js';
export * from './schema/users.js';
export * from './schema/wallet.js';
export * from './schema/web.js';
