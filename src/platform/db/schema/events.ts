/**
 * The outbox of the changes downstream systems learn of (docs/events.md; docs/decisions/0031-event-outbox.md): one
 * row per change, written in the change's own transaction (src/platform/events/outbox.ts), and numbered per
 * organisation after the commit (src/platform/events/sequencer.ts), in commit order, so that the change feed
 * (`GET {base}/organizations/{organizationID}/events`) reads it by `seq` and never skips a row.
 */
import { sql } from 'drizzle-orm';
import { bigint, bigserial, boolean, index, jsonb, pgTable, text, uniqueIndex, uuid } from 'drizzle-orm/pg-core';
import { tz } from './columns.js';

/**
 * One event of an organisation. Written once with its change; `seq` is set later, once, by the sequencer. A consent
 * event has the ID of its consent history event (`consent_events.id`) and is written held: its seal releases it.
 */
export const organisationEvents = pgTable(
  'organisation_events',
  {
    id: uuid('id').primaryKey(),
    orgId: uuid('org_id').notNull(),
    /** Drawn from a sequence at insert: the order of writing (a record's changes are written under its row lock). */
    pos: bigserial('pos', { mode: 'number' }).notNull(),
    /** The place in the organisation's feed, from 1, assigned after the commit; null until then. */
    seq: bigint('seq', { mode: 'number' }),
    /** The CloudEvents `type`, e.g. `consent.allowed` (docs/events.md). */
    type: text('type').notNull(),
    /** The individual the event is about (the CloudEvents `subject`), or null. */
    subject: uuid('subject'),
    occurredAt: tz('occurred_at').notNull(),
    /** The event's payload (the CloudEvents `data`). */
    data: jsonb('data').notNull(),
    /**
     * Not to be numbered yet: a consent event waits for its seal in the history's chain, which adds its `HistorySeq`
     * to `data` and releases it (`releaseOrganisationEvents`).
     */
    held: boolean('held').notNull().default(false),
  },
  (t) => [
    // The feed: an organisation's events after a seq, in seq order.
    uniqueIndex('organisation_events_feed').on(t.orgId, t.seq),
    // The sequencer: an organisation's unnumbered events in the order of writing; its sweep: which organisations.
    index('organisation_events_unsequenced').on(t.orgId, t.pos).where(sql`seq IS NULL AND NOT held`),
  ],
);

/** The last seq given in each organisation's feed; its row lock orders the sequencers of every process. */
export const organisationEventHeads = pgTable('organisation_event_heads', {
  orgId: uuid('org_id').primaryKey(),
  seq: bigint('seq', { mode: 'number' }).notNull(),
});
