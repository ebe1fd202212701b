/**
 * The organisation audit log (docs/audit.md): who changed what in an organisation's administration, from where and
 * when, never a secret; each entry sealed into the organisation's hash chain just after its commit
 * (docs/decisions/0033-audit-log-chain.md).
 */
import { sql } from 'drizzle-orm';
import { bigint, index, jsonb, pgTable, text, uniqueIndex, uuid } from 'drizzle-orm/pg-core';
import { bytea, tz } from './columns.js';
import { organisations } from './core.js';

/**
 * One administrative change (ASVS 5.0 V16.2.1). The actor's name and e-mail are copied when the entry is written, so
 * that it still names them after the account is deleted. `seq` and `link` are null until the entry is sealed.
 */
export const orgAuditLog = pgTable(
  'org_audit_log',
  {
    id: uuid('id').primaryKey(),
    orgId: uuid('org_id')
      .notNull()
      .references(() => organisations.id),
    actorUserId: uuid('actor_user_id'),
    actorApiKeyId: uuid('actor_api_key_id'),
    /** The actor's name when the entry was written ("" when no user acted). */
    actorName: text('actor_name').notNull().default(''),
    /** The actor's e-mail when the entry was written ("" when no user acted). */
    actorEmail: text('actor_email').notNull().default(''),
    /** `api`, `console`, `import`, `cli` or `system`. */
    source: text('source').notNull().default('api'),
    action: text('action').notNull(),
    /** The kind of object changed (`purpose`, `webhook`, …; "" when the organisation itself). */
    targetType: text('target_type').notNull().default(''),
    /** Its ID ("" when none). */
    targetId: text('target_id').notNull().default(''),
    /** Field → `{old, new}` of the changed fields; `{}` when the action says it all. */
    changes: jsonb('changes').notNull().default({}),
    /** Other non-secret details (names, counts). */
    detail: jsonb('detail').notNull(),
    /** The `X-Request-Id` of the request that made the change ("" outside a request). */
    requestId: text('request_id').notNull().default(''),
    /** The client's IP address as the server saw it (`ASSENT_TRUST_PROXY` applies; "" outside a request). */
    clientIp: text('client_ip').notNull().default(''),
    at: tz('at').notNull().defaultNow(),
    /** Position in the organisation's chain, from 1; null until sealed. */
    seq: bigint('seq', { mode: 'number' }),
    /** SHA-256(previous link ‖ SHA-256(canonical entry)), 32 bytes; null until sealed. */
    link: bytea('link'),
  },
  (t) => [
    index('org_audit_log_org_id').on(t.orgId, t.id),
    uniqueIndex('org_audit_log_org_seq').on(t.orgId, t.seq),
    index('org_audit_log_unsealed').on(t.orgId, t.id).where(sql`${t.seq} IS NULL`),
  ],
);

/** Each organisation's last sealed audit entry: the row sealers lock, one at a time. */
export const orgAuditHeads = pgTable('org_audit_heads', {
  orgId: uuid('org_id')
    .primaryKey()
    .references(() => organisations.id),
  seq: bigint('seq', { mode: 'number' }).notNull(),
  link: bytea('link').notNull(),
});
