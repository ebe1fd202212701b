/**
 * The relational schema, shared by PGlite and PostgreSQL: every table, from the core tables
 * (`core.ts`) and one file per area that references them. drizzle-kit generates the SQL
 * migrations in `drizzle/` from these files (`npm run db:generate`). This file only re-exports, so
 * that no schema file imports it back (no module cycle: each area's file imports `core.ts`).
 */
export * from './audit.js';
export * from './consent.js';
export * from './core.js';
export * from './events.js';
export * from './factors.js';
export * from './federation.js';
export * from './notifications.js';
export * from './oidc.js';
export * from './saml.js';
export * from './users.js';
export * from './wallet.js';
export * from './web.js';
export * from './webhooks.js';
