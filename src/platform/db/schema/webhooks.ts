/**
 * Webhooks of organisation events (docs/events.md "Webhooks"): the endpoints an organisation registered, one
 * delivery per event and webhook, fanned out from the outbox (`organisation_events`) after its numbering, and one
 * row per attempt of a delivery, which is what the deliveries log shows.
 */
import { sql } from 'drizzle-orm';
import { bigint, bigserial, boolean, index, integer, jsonb, pgTable, text, uuid } from 'drizzle-orm/pg-core';
import { tz } from './columns.js';
import { organisations } from './core.js';

/** One webhook of an organisation. */
export const webhooks = pgTable(
  'webhooks',
  {
    id: uuid('id').primaryKey(),
    orgId: uuid('org_id')
      .notNull()
      .references(() => organisations.id, { onDelete: 'cascade' }),
    payloadUrl: text('payload_url').notNull(),
    /** Event types (docs/events.md "What is emitted"), as a JSON array of strings. */
    subscribedEvents: jsonb('subscribed_events').$type<string[]>().notNull(),
    disabled: boolean('disabled').notNull().default(false),
    /** Why it is disabled: `admin` (set so) or `failing` (every delivery failed for the disable window). */
    disabledReason: text('disabled_reason'),
    contentType: text('content_type').notNull().default('application/json'),
    /** The signing secret (`whsec_…`), sealed under the master key (src/platform/crypto/master-key.ts). */
    secretSealed: text('secret_sealed').notNull(),
    /** The secret before the last rotation, still signing beside the new one until `previous_secret_until`. */
    previousSecretSealed: text('previous_secret_sealed'),
    previousSecretUntil: tz('previous_secret_until'),
    /** The last feed `seq` fanned out into deliveries: events after it are still to be fanned out. */
    lastSeq: bigint('last_seq', { mode: 'number' }).notNull(),
    /**
     * A process is fanning out (and making first attempts of) the events after `last_seq` until then; past it,
     * another may.
     */
    fanOutLeasedUntil: tz('fan_out_leased_until'),
    /** When an attempt last succeeded (2xx). */
    lastSuccessAt: tz('last_success_at'),
    /** The first failed attempt since the last success, or null: the start of the disable window. */
    failingSince: tz('failing_since'),
    createdAt: tz('created_at').notNull(),
    updatedAt: tz('updated_at').notNull(),
  },
  (t) => [index('webhooks_org').on(t.orgId)],
);

/** One attempt of a delivery, as the deliveries log shows it (never the secret). */
export interface DeliveryAttempt {
  /** Its number, from 1. */
  attempt: number;
  /** When it was sent (RFC 3339). */
  at: string;
  /** From sending to the answer, or to giving up (milliseconds). */
  durationMs: number;
  /** The answer's HTTP status, or null when none came. */
  status: number | null;
  /** Why no usable answer came (our words), or null. */
  error: string | null;
  requestHeaders: Record<string, string>;
  responseHeaders: Record<string, string>;
}

/**
 * One delivery of one event to one webhook. Deliveries of one `lane` (the individual the event is about; `''` for
 * events about no individual; the delivery's own ID for a ping or a redelivery) go out in `ord` order, one at a time.
 */
export const webhookDeliveries = pgTable(
  'webhook_deliveries',
  {
    id: uuid('id').primaryKey(),
    /** Drawn at insert: the order of a lane. */
    ord: bigserial('ord', { mode: 'number' }).notNull(),
    webhookId: uuid('webhook_id')
      .notNull()
      .references(() => webhooks.id, { onDelete: 'cascade' }),
    orgId: uuid('org_id').notNull(),
    /** The CloudEvents `id`: the outbox event's ID, or the ping's own. */
    eventId: uuid('event_id').notNull(),
    eventType: text('event_type').notNull(),
    lane: text('lane').notNull(),
    /** `pending`, `succeeded`, or `failed` (given up, or refused by the receiver). */
    state: text('state').notNull(),
    attempts: integer('attempts').notNull().default(0),
    /** When the next attempt is due. */
    nextAt: tz('next_at').notNull(),
    /** A process is attempting it until then; past it, another may. */
    leasedUntil: tz('leased_until'),
    /** The body of a ping (a ping has no outbox event to build it from). */
    body: text('body'),
    /** The delivery this one redelivers. */
    redeliveryOf: uuid('redelivery_of'),
    createdAt: tz('created_at').notNull(),
    finishedAt: tz('finished_at'),
    /** Its attempts, oldest first, each appended as it is settled: kept in the row, not a row each. */
    attemptLog: jsonb('attempt_log').$type<DeliveryAttempt[]>().notNull().default(sql`'[]'::jsonb`),
  },
  (t) => [
    // The lane's head: no later delivery of a lane goes out while an earlier one is pending.
    index('webhook_deliveries_lane').on(t.webhookId, t.lane, t.ord).where(sql`state = 'pending'`),
    // The due deliveries.
    index('webhook_deliveries_due').on(t.nextAt).where(sql`state = 'pending'`),
    // The deliveries log, newest first.
    index('webhook_deliveries_log').on(t.webhookId, t.ord),
  ],
);
