import { sql } from 'drizzle-orm';
/**
 * Notifications of the special consent request (docs/api.md "Permissions and consents", the 202 operation): each
 * organisation's transports, the request jobs, one delivery row per (job, individual), which is
 * the idempotency key that keeps an individual from being notified twice, and the webhook log.
 */
import { boolean, index, integer, jsonb, pgTable, primaryKey, text, uuid } from 'drizzle-orm/pg-core';
import { tz } from './columns.js';
import { organisations, purposes } from './core.js';

/**
 * An organisation's notification transports. The webhook secret is sealed under the master key
 * (purpose `webhook-secret`); the receiver holds it to check `Assent-Signature`. The push
 * credentials (docs/notifications.md "Mobile push") are sealed too: the FCM service-account key
 * JSON (purpose `fcm-service-account`) and the APNs `.p8` signing key (purpose `apns-key`); only
 * their public identifiers are stored in clear.
 */
export const notificationTransports = pgTable('notification_transports', {
  orgId: uuid('org_id')
    .primaryKey()
    .references(() => organisations.id),
  emailEnabled: boolean('email_enabled').notNull().default(false),
  webhookUrl: text('webhook_url'),
  webhookSecretSealed: text('webhook_secret_sealed'),
  /** The FCM project ID (from the service-account key), or null when FCM is not set. */
  fcmProjectId: text('fcm_project_id'),
  /** The service account's e-mail (`client_email`), shown to admins. */
  fcmClientEmail: text('fcm_client_email'),
  /** The whole service-account key JSON, sealed. */
  fcmKeySealed: text('fcm_key_sealed'),
  /** The APNs `.p8` key (PKCS#8 PEM), sealed; null when APNs is not set. */
  apnsKeySealed: text('apns_key_sealed'),
  /** The APNs key ID (`kid` of the provider token). */
  apnsKeyId: text('apns_key_id'),
  /** The Apple developer team ID (`iss` of the provider token). */
  apnsTeamId: text('apns_team_id'),
  /** The app's bundle ID (`apns-topic`). */
  apnsBundleId: text('apns_bundle_id'),
  /** True for api.push.apple.com, false for the sandbox. */
  apnsProduction: boolean('apns_production').notNull().default(true),
  updatedAt: tz('updated_at').notNull().defaultNow(),
});

/**
 * One special consent request: asks every subscribed individual who holds a Disallow for any of
 * `attributeIds` to reconsider. Scanned in keyset batches of individuals (`cursor` = last user ID
 * claimed); `batchSeq` is the number of batches claimed so far.
 */
export const consentRequestJobs = pgTable(
  'consent_request_jobs',
  {
    id: uuid('id').primaryKey(),
    orgId: uuid('org_id')
      .notNull()
      .references(() => organisations.id),
    purposeId: uuid('purpose_id')
      .notNull()
      .references(() => purposes.id),
    attributeIds: jsonb('attribute_ids').$type<string[]>().notNull(),
    /** Who asked: `{userId, apiKeyId?}`. */
    requestedBy: jsonb('requested_by').notNull(),
    /** `queued`, `running`, `completed` or `failed`. */
    state: text('state').notNull(),
    batchSeq: integer('batch_seq').notNull().default(0),
    cursor: uuid('cursor'),
    scanDone: boolean('scan_done').notNull().default(false),
    notified: integer('notified').notNull().default(0),
    skipped: integer('skipped').notNull().default(0),
    failed: integer('failed').notNull().default(0),
    /** Deliveries `sent`, by transport: `{"webhook": n, "email": n, "fcm": n, "apns": n}` (absent key: 0). */
    notifiedBy: jsonb('notified_by').$type<Record<string, number>>().notNull().default({}),
    /** Deliveries `failed`, by transport, like `notifiedBy`. */
    failedBy: jsonb('failed_by').$type<Record<string, number>>().notNull().default({}),
    error: text('error'),
    /** Why individuals were counted as `skipped` (no transport reaches them), or null when none was. */
    skipReason: text('skip_reason'),
    createdAt: tz('created_at').notNull().defaultNow(),
    startedAt: tz('started_at'),
    finishedAt: tz('finished_at'),
  },
  (t) => [index('consent_request_jobs_org').on(t.orgId, t.createdAt)],
);

/**
 * One notification of one individual by one job: its primary key is the idempotency key. `state`
 * is `pending` (claimed, not yet sent), `retrying`, `sent`, `failed` or `skipped` (no transport
 * reaches the individual).
 */
export const consentRequestDeliveries = pgTable(
  'consent_request_deliveries',
  {
    jobId: uuid('job_id')
      .notNull()
      .references(() => consentRequestJobs.id),
    userId: uuid('user_id').notNull(),
    batch: integer('batch').notNull(),
    /** `webhook`, `email`, `fcm`, `apns`, or `none` when skipped. */
    transport: text('transport').notNull(),
    state: text('state').notNull(),
    attempts: integer('attempts').notNull().default(0),
    lastError: text('last_error'),
    updatedAt: tz('updated_at').notNull().defaultNow(),
  },
  (t) => [
    primaryKey({ columns: [t.jobId, t.userId] }),
    index('consent_request_deliveries_batch').on(t.jobId, t.batch),
    // The deliveries still open: whether a job is done is then O(open), not O(delivered), though it is asked after
    // every batch.
    index('consent_request_deliveries_open').on(t.jobId).where(sql`state IN ('pending', 'retrying')`),
  ],
);

/**
 * The webhook delivery log: one row per attempt (UUIDv7 IDs, so ID order is time order); never the
 * signature. A row is written before its request is sent (`state` `sending`) and completed after
 * (`delivered` or `failed`, with status, error and duration), so every request that may have reached
 * the receiver is in the log; one whose process died in flight becomes `unknown` when the delivery
 * is attempted again.
 */
export const webhookAttempts = pgTable(
  'webhook_attempts',
  {
    id: uuid('id').primaryKey(),
    orgId: uuid('org_id').notNull(),
    jobId: uuid('job_id').notNull(),
    userId: uuid('user_id').notNull(),
    url: text('url').notNull(),
    attempt: integer('attempt').notNull(),
    /** HTTP status of the answer; null when none came (refused, timed out). */
    status: integer('status'),
    /** Why it failed, in our words (never the remote body); null on success. */
    error: text('error'),
    /** milliseconds; 0 while `sending` or `unknown` */
    durationMs: integer('duration_ms').notNull(),
    /** `sending` (recorded, outcome not yet known), `delivered`, `failed` or `unknown` (the sender died). */
    state: text('state').notNull(),
    at: tz('at').notNull().defaultNow(),
  },
  (t) => [
    index('webhook_attempts_org_id').on(t.orgId, t.id),
    // Attempts still in flight: a delivery attempted again finds its predecessors' in O(in flight).
    index('webhook_attempts_in_flight').on(t.jobId, t.userId).where(sql`state = 'sending'`),
  ],
);
