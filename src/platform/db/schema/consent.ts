/**
 * Consent records, attribute consents and their evidence (docs/decisions/0008-consent-records-and-catalogue.md; docs/api.md "Resources"
 * "User consents record"; GDPR Art. 7(1); ISO/IEC TS 27560 "consent record").
 */
import { sql } from 'drizzle-orm';
import {
  bigint,
  bigserial,
  index,
  integer,
  jsonb,
  pgTable,
  primaryKey,
  text,
  uniqueIndex,
  uuid,
} from 'drizzle-orm/pg-core';
import { bytea, tz } from './columns.js';
import { dataAttributes, organisations, purposes, users } from './core.js';

/**
 * One consent record per (organisation, individual), created at the first subscription and kept
 * after an unsubscription, so that its evidence outlives it. Its ID is the `consentID` of the paths.
 */
export const consentRecords = pgTable(
  'consent_records',
  {
    id: uuid('id').primaryKey(),
    orgId: uuid('org_id')
      .notNull()
      .references(() => organisations.id),
    userId: uuid('user_id')
      .notNull()
      .references(() => users.id),
    createdAt: tz('created_at').notNull().defaultNow(),
    /**
     * Bumped by every change of the record's consents, under the record's row lock: a change that
     * read the record at version n may write without a transaction of its own only while it is still n.
     */
    version: bigint('version', { mode: 'number' }).notNull().default(0),
  },
  (t) => [
    uniqueIndex('consent_records_org_user').on(t.orgId, t.userId),
    // An individual's records across organisations: the data export (GDPR Art. 15 and 20; docs/identity.md).
    index('consent_records_user').on(t.userId),
  ],
);

/**
 * The current value of one attribute of one purpose in one consent record. No row means nobody
 * decided yet: the value then follows the purpose's lawful basis (docs/api.md "Defaults").
 * `expiresAt` is set for an AskMe with days (the decision time plus `days`).
 */
export const attributeConsents = pgTable(
  'attribute_consents',
  {
    recordId: uuid('record_id')
      .notNull()
      .references(() => consentRecords.id),
    purposeId: uuid('purpose_id')
      .notNull()
      .references(() => purposes.id),
    attributeId: uuid('attribute_id')
      .notNull()
      .references(() => dataAttributes.id),
    /** The individual, denormalised so that consented-user pages run on one index in user order. */
    userId: uuid('user_id').notNull(),
    /** `Allow`, `Disallow` or `AskMe`. */
    value: text('value').notNull(),
    /** Days given with the choice (0 = no time limit). */
    days: integer('days').notNull().default(0),
    decidedAt: tz('decided_at').notNull(),
    expiresAt: tz('expires_at'),
  },
  (t) => [
    primaryKey({ columns: [t.recordId, t.purposeId, t.attributeId] }),
    // Consented-user pages of an attribute or a purpose: a keyset in user order over consenting rows only.
    index('attribute_consents_consenting').on(t.purposeId, t.attributeId, t.userId).where(sql`value <> 'Disallow'`),
    index('attribute_consents_purpose_user').on(t.purposeId, t.userId).where(sql`value <> 'Disallow'`),
    // Lawful-basis purposes count everyone but those whose every attribute is a Disallow or an AskMe
    // that ran out: one index-only probe per listed user (the columns the test reads are keys). Also
    // the lawful special consent request's walk over the Disallow rows in user order.
    index('attribute_consents_not_allowed')
      .on(t.purposeId, t.userId, t.attributeId, t.value, t.expiresAt)
      .where(sql`value <> 'Allow'`),
    // The AskMe expiry sweep.
    index('attribute_consents_expiry').on(t.expiresAt).where(sql`value = 'AskMe' AND expires_at IS NOT NULL`),
    // The special consent request on a lawful purpose: its AskMe consents that ran out and the sweep has not yet
    // turned into Disallow.
    index('attribute_consents_askme_purpose')
      .on(t.purposeId, t.expiresAt)
      .where(sql`value = 'AskMe' AND expires_at IS NOT NULL`),
  ],
);

/**
 * The consent history: one immutable event per change (GDPR Art. 7(1)). A row is written once, with
 * its change, and never updated: its place in the organisation's hash chain is a row of
 * `consent_event_seals`, written when src/consent/evidence/sealer.ts chains it just after the commit, and until
 * then it waits in `consent_event_queue`. Sealing used to update the event row in place; now the
 * database refuses any UPDATE or DELETE of an event (migration 0010), so evidence rows are
 * append-only whatever code runs.
 */
export const consentEvents = pgTable(
  'consent_events',
  {
    orgId: uuid('org_id').notNull(),
    id: uuid('id').primaryKey(),
    /**
     * Drawn from a sequence when the event is written, under its record's lock: the order of one
     * record's changes, so its events are sealed (and its state at an instant is read) in that order.
     */
    written: bigserial('written', { mode: 'number' }).notNull(),
    recordId: uuid('record_id').notNull(),
    userId: uuid('user_id').notNull(),
    purposeId: uuid('purpose_id').notNull(),
    attributeId: uuid('attribute_id').notNull(),
    oldValue: text('old_value').notNull(),
    newValue: text('new_value').notNull(),
    oldDays: integer('old_days').notNull(),
    newDays: integer('new_days').notNull(),
    occurredAt: tz('occurred_at').notNull(),
    /** Who acted: `{type: "individual" | "apiKey" | "admin" | "system", userId?, apiKeyId?}`. */
    actor: jsonb('actor').notNull(),
    /** Through what: `{endpoint, userAgent}`. */
    channel: jsonb('channel').notNull(),
    requestId: text('request_id').notNull(),
  },
  (t) => [
    // A record's events (the history pages), and its attribute's last event before an instant, with no sort: `?at=`
    // and the consent trend's probe per attribute consent (docs/consents.md "Overview and trend"). It replaced
    // (record_id, occurred_at), whose probe sorted all of the record's earlier events.
    index('consent_events_record_attribute').on(t.recordId, t.purposeId, t.attributeId, t.occurredAt, t.written),
    // The consent trend of an organisation: its events of the last days.
    index('consent_events_org_time').on(t.orgId, t.occurredAt),
  ],
);

/**
 * An event's place in its organisation's chain, written once by the sealer. `contentHash` is the
 * SHA-256 of the event's RFC 8785 canonical JSON (its `seq` included); `link` = SHA-256(`prevLink` ‖
 * `contentHash`).
 */
export const consentEventSeals = pgTable(
  'consent_event_seals',
  {
    orgId: uuid('org_id').notNull(),
    /** Position in the organisation's chain, from 1. */
    seq: bigint('seq', { mode: 'number' }).notNull(),
    eventId: uuid('event_id').notNull(),
    contentHash: bytea('content_hash').notNull(),
    prevLink: bytea('prev_link').notNull(),
    link: bytea('link').notNull(),
  },
  (t) => [primaryKey({ columns: [t.orgId, t.seq] }), uniqueIndex('consent_event_seals_event').on(t.eventId)],
);

/**
 * The events written and not yet sealed, in the order of `written`: the sealer's queue. A row is
 * added with its event, in the same statement, and removed when the event is sealed.
 */
export const consentEventQueue = pgTable(
  'consent_event_queue',
  {
    orgId: uuid('org_id').notNull(),
    written: bigint('written', { mode: 'number' }).notNull(),
    eventId: uuid('event_id').notNull(),
  },
  (t) => [primaryKey({ columns: [t.orgId, t.written] })],
);

/** The head of each organisation's event chain; its row lock orders the appends. */
export const consentChainHeads = pgTable('consent_chain_heads', {
  orgId: uuid('org_id').primaryKey(),
  seq: bigint('seq', { mode: 'number' }).notNull(),
  link: bytea('link').notNull(),
});
