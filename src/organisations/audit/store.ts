/** SQL of the organisation audit log (`org_audit_log`; docs/audit.md). */
import { and, asc, desc, eq, gt, gte, lt, sql } from 'drizzle-orm';
import { v7 as uuidv7 } from 'uuid';
import type { ChangeSource } from '../../platform/core/activity.js';
import type { Executor } from '../../platform/db/open.js';
import { orgAuditLog } from '../../platform/db/schema/audit.js';

/** A stored entry. */
export type AuditRow = typeof orgAuditLog.$inferSelect;

/** What an insert is given; the actor's name and e-mail are read from the account by the statement. */
export interface NewAuditRow {
  orgId: string;
  actorUserId: string | null;
  actorApiKeyId: string | null;
  source: ChangeSource;
  action: string;
  targetType: string;
  targetId: string;
  changes: Record<string, unknown>;
  detail: Record<string, unknown>;
  requestId: string;
  clientIp: string;
}

/**
 * Inserts one entry, unsealed (its ID a UUIDv7, so IDs sort by time; `at` is the database's now), copying the actor's
 * name and e-mail as they are now (docs/audit.md "Entries": an entry keeps naming a person whose account is deleted).
 * The e-mail is the account's e-mail field when it holds an address, else its username when that is one (staff
 * usernames are usually their address), as mails to Owners are addressed (organisations/membership/directory.ts).
 * Only staff (an actor with a role in the organisation) are copied: an individual acting for themselves (a wallet
 * sign-in) is named by ID alone, so that the log holds no individual's personal data (GDPR Art. 5(1)(c)).
 */
export async function insertEntry(db: Executor, entry: NewAuditRow): Promise<void> {
  const actor = entry.actorUserId;
  await db.execute(sql`INSERT INTO org_audit_log (id, org_id, actor_user_id, actor_api_key_id, actor_name, actor_email,
      source, action, target_type, target_id, changes, detail, request_id, client_ip)
    SELECT ${uuidv7()}::uuid, ${entry.orgId}::uuid, ${actor}::uuid, ${entry.actorApiKeyId}::uuid,
      coalesce(u.name, ''),
      CASE WHEN strpos(trim(u.email), '@') > 1 THEN trim(u.email) WHEN strpos(u.username, '@') > 1 THEN u.username
        ELSE '' END,
      ${entry.source}, ${entry.action}, ${entry.targetType},
      ${entry.targetId}, ${JSON.stringify(entry.changes)}::jsonb, ${JSON.stringify(entry.detail)}::jsonb,
      ${entry.requestId}, ${entry.clientIp}
    FROM (SELECT 1) AS one LEFT JOIN users u ON u.id = ${actor}::uuid
      AND EXISTS (SELECT 1 FROM user_roles r WHERE r.user_id = u.id AND r.org_id = ${entry.orgId}::uuid)`);
}

/** Narrows a page of entries; every given field must hold. */
export interface AuditFilter {
  /** Exactly this action (`purpose.update`), or, ending in a dot, every action it starts (`purpose.`). */
  action?: string;
  /** The acting user's ID. */
  actorUserId?: string;
  /** The acting user's e-mail when the entry was written (case-insensitive). */
  actorEmail?: string;
  /** The changed object's ID. */
  targetId?: string;
  /** From this instant (inclusive). */
  from?: Date;
  /** Before this instant (exclusive). */
  to?: Date;
}

/** The SQL condition of a filter (LIKE's wildcards in an action prefix are taken literally). */
function filterWhere(orgId: string, filter: AuditFilter) {
  const prefix = filter.action?.endsWith('.') ? filter.action : undefined;
  return and(
    eq(orgAuditLog.orgId, orgId),
    prefix !== undefined
      ? sql`starts_with(${orgAuditLog.action}, ${prefix})`
      : filter.action !== undefined
        ? eq(orgAuditLog.action, filter.action)
        : undefined,
    filter.actorUserId !== undefined ? eq(orgAuditLog.actorUserId, filter.actorUserId) : undefined,
    filter.actorEmail !== undefined ? sql`lower(${orgAuditLog.actorEmail}) = lower(${filter.actorEmail})` : undefined,
    filter.targetId !== undefined ? eq(orgAuditLog.targetId, filter.targetId) : undefined,
    filter.from !== undefined ? gte(orgAuditLog.at, filter.from) : undefined,
    filter.to !== undefined ? lt(orgAuditLog.at, filter.to) : undefined,
  );
}

/**
 * Entries of an organisation, newest first, keyset-paged by ID.
 * @param beforeId - exclusive: the entries older than this one; undefined for the newest.
 * @param limit - the page size; one row more is read, to tell whether another page exists.
 * @param filter - only the entries it admits.
 */
export async function entriesBefore(
  db: Executor,
  orgId: string,
  beforeId: string | undefined,
  limit: number,
  filter: AuditFilter = {},
): Promise<AuditRow[]> {
  return db
    .select()
    .from(orgAuditLog)
    .where(and(filterWhere(orgId, filter), beforeId ? lt(orgAuditLog.id, beforeId) : undefined))
    .orderBy(desc(orgAuditLog.id))
    .limit(limit + 1);
}

/**
 * Entries of an organisation, oldest first, keyset by ID: the export's batches.
 * @param afterId - exclusive: the entries newer than this one; undefined from the first.
 * @param limit - the batch size (count).
 * @param filter - only the entries it admits.
 */
export function entriesAfter(
  db: Executor,
  orgId: string,
  afterId: string | undefined,
  limit: number,
  filter: AuditFilter,
): Promise<AuditRow[]> {
  return db
    .select()
    .from(orgAuditLog)
    .where(and(filterWhere(orgId, filter), afterId ? gt(orgAuditLog.id, afterId) : undefined))
    .orderBy(asc(orgAuditLog.id))
    .limit(limit);
}

/** At most this many choices of each kind are offered (count). */
const CHOICES = 200;

/**
 * The actions and actor e-mails that occur in the organisation's log, ascending, at most `CHOICES` (200) of each: the
 * console's filter suggestions. Each is one scan of the organisation's entries.
 */
export async function filterChoices(
  db: Executor,
  orgId: string,
): Promise<{ actions: string[]; actorEmails: string[] }> {
  const [actions, emails] = await Promise.all([
    db.execute(
      sql`SELECT DISTINCT action AS v FROM org_audit_log WHERE org_id = ${orgId}::uuid ORDER BY 1 LIMIT ${CHOICES}`,
    ),
    db.execute(
      sql`SELECT DISTINCT actor_email AS v FROM org_audit_log WHERE org_id = ${orgId}::uuid AND actor_email <> ''
        ORDER BY 1 LIMIT ${CHOICES}`,
    ),
  ]);
  const values = (r: unknown) => (r as { rows: Array<{ v: string }> }).rows.map((x) => x.v);
  return { actions: values(actions), actorEmails: values(emails) };
}
