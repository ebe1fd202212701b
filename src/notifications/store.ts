/**
 * SQL of the special consent request (docs/api.md "Permissions and consents"): jobs and delivery rows (the organisations'
 * transports and the device tokens are `transports/store.ts`, the webhook log `attempts-store.ts`).
 */
import { and, eq, sql } from 'drizzle-orm';
import { COUNTING } from '../consent/index.js';
import { arrayLiteral } from '../platform/db/arrays.js';
import { type Executor, rowsOf } from '../platform/db/open.js';
import { consentRequestJobs } from '../platform/db/schema/index.js';
import type { TransportName } from './transports/transports.js';

/** A job as stored. */
export type JobRow = typeof consentRequestJobs.$inferSelect;

/** Inserts a queued job. */
export async function insertJob(
  db: Executor,
  job: Pick<JobRow, 'id' | 'orgId' | 'purposeId' | 'attributeIds' | 'requestedBy'>,
): Promise<void> {
  await db.insert(consentRequestJobs).values({ ...job, state: 'queued' });
}

/** A job of the organisation, or null. */
export async function findJob(db: Executor, orgId: string, jobId: string): Promise<JobRow | null> {
  const [row] = await db
    .select()
    .from(consentRequestJobs)
    .where(and(eq(consentRequestJobs.id, jobId), eq(consentRequestJobs.orgId, orgId)));
  return row ?? null;
}

/** The job under its row lock (inside a transaction), or null. */
export async function lockJob(tx: Executor, jobId: string): Promise<JobRow | null> {
  const [row] = await tx.select().from(consentRequestJobs).where(eq(consentRequestJobs.id, jobId)).for('update');
  return row ?? null;
}

/** One individual to notify. */
export interface Recipient {
  userId: string;
  email: string;
  /** `User.Client.Token`, "" when none. */
  token: string;
  /** `User.Client.Type`. */
  clientType: number;
}

/** One step of the recipient scan: whom to notify, and where the next step starts. */
export interface RecipientPage {
  recipients: Recipient[];
  /** The last user ID this step examined (the next step starts after it), or null when it examined none. */
  cursor: string | null;
  /** True when nothing is left after `cursor`. */
  done: boolean;
}

/** The scope and position of a recipient scan. */
export interface RecipientScan {
  orgId: string;
  purposeId: string;
  attributeIds: string[];
  lawfulUsage: boolean;
  /** Exclusive keyset position (user ID), or null for the start. */
  after: string | null;
  /** Individuals examined per step (count). */
  limit: number;
}

/**
 * The next step of the scan for individuals to notify: subscribed individuals for whom at least one
 * of `attributeIds` does not count as consented (docs/api.md "Defaults"; docs/notifications.md "Special consent
 * request"). Each step yields at most `limit` individuals in user-ID order after `after`: on a
 * lawful purpose the candidates it examined, on a consent-based one the recipients it found.
 * @returns the recipients among them, the new cursor, and whether the scan is done.
 */
export async function nextRecipients(db: Executor, q: RecipientScan): Promise<RecipientPage> {
  const rows = q.lawfulUsage ? await lawfulCandidates(db, q) : await consentCandidates(db, q);
  const recipients = rows
    .filter((r) => r.notify)
    .map(({ userId, email, token, clientType }) => ({ userId, email, token, clientType }));
  return { recipients, cursor: rows.at(-1)?.userId ?? q.after, done: rows.length < q.limit };
}

/** An individual a scan step examined; `notify` false for one it passes over. */
type Candidate = Recipient & { notify: boolean };

/**
 * A consent-based purpose: an individual with no decision counts as Disallow, so every subscription
 * is a candidate. A keyset over `subscriptions_org_user`, one index probe per individual; the step
 * returns only recipients (most individuals are, on such a purpose), up to `limit`.
 */
async function consentCandidates(db: Executor, q: RecipientScan): Promise<Candidate[]> {
  const after = q.after === null ? sql`` : sql`AND s.user_id > ${q.after}`;
  const result = await db.execute(sql`
    SELECT s.user_id AS "userId", u.email, u.client_token AS token, u.client_type AS "clientType", true AS notify
    FROM subscriptions s JOIN users u ON u.id = s.user_id
    WHERE s.org_id = ${q.orgId} ${after}
      AND (SELECT count(*) FROM attribute_consents c
        WHERE c.purpose_id = ${q.purposeId} AND c.user_id = s.user_id AND c.attribute_id IN ${q.attributeIds}
          AND ${COUNTING}) < ${q.attributeIds.length}
    ORDER BY s.user_id LIMIT ${q.limit}`);
  return rowsOf<Candidate>(result);
}

/**
 * A lawful purpose: undecided counts as Allow, so only stored refusals are candidates, in user-ID
 * order: a Disallow (`attribute_consents_not_allowed`, walked in order and stopped after the step's
 * worth) or an AskMe that ran out and that the sweep has not yet turned into a Disallow (few; found
 * through `attribute_consents_askme_purpose` and sorted). A step costs O(limit), not
 * O(subscriptions) nor O(refusals left): each arm has its own LIMIT, since an individual holds at
 * most one row per attribute. A candidate that is no longer subscribed is examined but not notified.
 */
async function lawfulCandidates(db: Executor, q: RecipientScan): Promise<Candidate[]> {
  const after = q.after === null ? sql`` : sql`AND c.user_id > ${q.after}`;
  const mine = sql`c.purpose_id = ${q.purposeId} AND c.attribute_id IN ${q.attributeIds} ${after}`;
  const rows = q.limit * q.attributeIds.length;
  const result = await db.execute(sql`
    WITH candidate AS (
      SELECT DISTINCT user_id FROM (
        (SELECT c.user_id FROM attribute_consents c WHERE c.value = 'Disallow' AND ${mine}
          ORDER BY c.user_id LIMIT ${rows})
        UNION ALL
        (SELECT c.user_id FROM attribute_consents c
          WHERE c.value = 'AskMe' AND c.expires_at IS NOT NULL AND c.expires_at <= now() AND ${mine}
          ORDER BY c.user_id LIMIT ${rows})
      ) refusal ORDER BY user_id LIMIT ${q.limit}
    )
    SELECT k.user_id AS "userId", u.email, u.client_token AS token, u.client_type AS "clientType",
      s.user_id IS NOT NULL AS notify
    FROM candidate k
    LEFT JOIN subscriptions s ON s.org_id = ${q.orgId} AND s.user_id = k.user_id
    LEFT JOIN users u ON u.id = k.user_id
    ORDER BY k.user_id`);
  return rowsOf<Candidate>(result);
}

/** A delivery row to claim. */
export interface Claim {
  userId: string;
  transport: TransportName | 'none';
}

/**
 * Claims a batch: inserts its delivery rows (`skipped` for transport `none`, else `pending`) and
 * moves the job's cursor. The (job, individual) key makes a second claim of anyone a no-op.
 * @param cursor - the last user ID the batch's scan examined (`RecipientPage.cursor`), or null.
 * @param skipReason - why the batch's `none` claims reach nobody; stored on the job (the first
 *   reason given is kept) when any row is skipped.
 * @returns how many rows were skipped (count).
 */
export async function claimBatch(
  tx: Executor,
  jobId: string,
  batch: number,
  claims: Claim[],
  cursor: string | null,
  scanDone: boolean,
  skipReason: string | null = null,
): Promise<number> {
  let skipped = 0;
  if (claims.length > 0) {
    const result = await tx.execute(sql`
      INSERT INTO consent_request_deliveries (job_id, user_id, batch, transport, state)
      SELECT ${jobId}, u, ${batch}, t, CASE WHEN t = 'none' THEN 'skipped' ELSE 'pending' END
      FROM unnest(${arrayLiteral(claims.map((c) => c.userId))}::uuid[],
        ${arrayLiteral(claims.map((c) => c.transport))}::text[]) AS x(u, t)
      ON CONFLICT DO NOTHING RETURNING state`);
    skipped = rowsOf<{ state: string }>(result).filter((r) => r.state === 'skipped').length;
  }
  const reason = skipped > 0 ? skipReason : null;
  await tx.execute(sql`
    UPDATE consent_request_jobs SET batch_seq = ${batch}, scan_done = ${scanDone}, skipped = skipped + ${skipped},
      skip_reason = COALESCE(skip_reason, ${reason}::text),
      cursor = COALESCE(${cursor ?? null}::uuid, cursor), state = 'running', started_at = COALESCE(started_at, now())
    WHERE id = ${jobId}`);
  return skipped;
}

/** A delivery waiting to be sent. */
export interface PendingDelivery {
  userId: string;
  transport: TransportName;
  email: string;
  /** The individual's device token now (it may have changed since the claim). */
  token: string;
  clientType: number;
  /** Attempts settled so far (count): the next attempt is number `attempts + 1`. */
  attempts: number;
}

/** The deliveries of a batch still `pending` (none after a completed run; some after a crash). */
export async function pendingOfBatch(db: Executor, jobId: string, batch: number): Promise<PendingDelivery[]> {
  const result = await db.execute(sql`
    SELECT d.user_id AS "userId", d.transport, u.email, u.client_token AS token, u.client_type AS "clientType", d.attempts
    FROM consent_request_deliveries d JOIN users u ON u.id = d.user_id
    WHERE d.job_id = ${jobId} AND d.batch = ${batch} AND d.state = 'pending'`);
  return rowsOf<PendingDelivery>(result);
}

/** The deliveries among `userIds` still `retrying` (the others were settled meanwhile). */
export async function retryingDeliveries(db: Executor, jobId: string, userIds: string[]): Promise<PendingDelivery[]> {
  const result = await db.execute(sql`
    SELECT d.user_id AS "userId", d.transport, u.email, u.client_token AS token, u.client_type AS "clientType", d.attempts
    FROM consent_request_deliveries d JOIN users u ON u.id = d.user_id
    WHERE d.job_id = ${jobId} AND d.user_id = ANY(${arrayLiteral(userIds)}::uuid[]) AND d.state = 'retrying'`);
  return rowsOf<PendingDelivery>(result);
}

/**
 * Moves deliveries from one of `from` states to `to`, and adds the number actually moved to the
 * job's counter of `to` and, for `sent` and `failed`, to its per-transport count (`notified_by`,
 * `failed_by`), so a repeated call counts nobody twice.
 * @param to - `sent`, `retrying` or `failed`.
 * @param error - the reason stored with a failure, or null.
 * @returns how many rows moved (count).
 */
export async function settle(
  db: Executor,
  jobId: string,
  userIds: string[],
  from: string[],
  to: 'sent' | 'retrying' | 'failed',
  error: string | null,
): Promise<number> {
  if (userIds.length === 0) return 0;
  const counter =
    to === 'sent'
      ? sql`notified = notified + m.n, notified_by = ${addTo(sql`notified_by`)}`
      : to === 'failed'
        ? sql`failed = failed + m.n, failed_by = ${addTo(sql`failed_by`)}`
        : sql`notified = notified`;
  const result = await db.execute(sql`
    WITH moved AS (
      UPDATE consent_request_deliveries
      SET state = ${to}, attempts = attempts + 1, last_error = ${error}, updated_at = now()
      WHERE job_id = ${jobId} AND user_id = ANY(${arrayLiteral(userIds)}::uuid[]) AND state IN ${from}
      RETURNING transport),
    m AS (SELECT COALESCE(sum(c), 0)::int AS n, COALESCE(jsonb_object_agg(transport, c), '{}'::jsonb) AS per
      FROM (SELECT transport, count(*)::int AS c FROM moved GROUP BY transport) g)
    UPDATE consent_request_jobs SET ${counter} FROM m WHERE id = ${jobId} RETURNING m.n`);
  return rowsOf<{ n: number }>(result)[0]?.n ?? 0;
}

/** `column` (a jsonb object of counts) plus `m.per`, key by key. */
function addTo(column: ReturnType<typeof sql>) {
  return sql`${column} || COALESCE((SELECT jsonb_object_agg(k, COALESCE((${column} ->> k)::int, 0) + (m.per ->> k)::int)
    FROM jsonb_object_keys(m.per) k), '{}'::jsonb)`;
}

/** A job's final counts, as `completeIfDone` answers them (counts of individuals). */
export interface CompletedJob {
  orgId: string;
  notified: number;
  skipped: number;
  failed: number;
}

/**
 * Marks the job completed when its scan is done and no delivery is pending or retrying.
 * @returns its organisation and counts when this call completed it; null otherwise.
 */
export async function completeIfDone(db: Executor, jobId: string): Promise<CompletedJob | null> {
  const result = await db.execute(sql`
    UPDATE consent_request_jobs SET state = 'completed', finished_at = now()
    WHERE id = ${jobId} AND state = 'running' AND scan_done
      AND NOT EXISTS (SELECT 1 FROM consent_request_deliveries
        WHERE job_id = ${jobId} AND state IN ('pending', 'retrying'))
    RETURNING org_id AS "orgId", notified, skipped, failed`);
  return rowsOf<CompletedJob>(result)[0] ?? null;
}

/** Marks the job failed, with the reason, unless it already ended. */
export async function failJob(db: Executor, jobId: string, error: string): Promise<void> {
  await db.execute(sql`
    UPDATE consent_request_jobs SET state = 'failed', error = ${error}, finished_at = now()
    WHERE id = ${jobId} AND state IN ('queued', 'running')`);
}

/** A job by ID alone (the worker's view), or null. */
export async function findJobById(db: Executor, jobId: string): Promise<JobRow | null> {
  const [row] = await db.select().from(consentRequestJobs).where(eq(consentRequestJobs.id, jobId));
  return row ?? null;
}

/** The names the notification text needs: the organisation's, the purpose's and its attributes'. */
export async function namesFor(
  db: Executor,
  orgId: string,
  purposeId: string,
  attributeIds: string[],
): Promise<{ orgName: string; purposeName: string; lawfulUsage: boolean; attributeNames: string[] }> {
  const result = await db.execute(sql`
    SELECT o.name AS "orgName", p.name AS "purposeName", p.lawful_usage AS "lawfulUsage",
      COALESCE((SELECT json_agg(a.name ORDER BY a.name) FROM data_attributes a WHERE a.id IN ${attributeIds}),
        '[]'::json) AS "attributeNames"
    FROM organisations o JOIN purposes p ON p.org_id = o.id WHERE o.id = ${orgId} AND p.id = ${purposeId}`);
  const row = rowsOf<{ orgName: string; purposeName: string; lawfulUsage: boolean; attributeNames: string[] }>(
    result,
  )[0];
  if (!row) throw new Error('the request names an organisation or purpose that is gone');
  return row;
}
