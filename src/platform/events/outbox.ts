/**
 * The outbox (docs/events.md; docs/decisions/0031-event-outbox.md): the changes downstream systems learn of, written
 * in the change's own transaction, so that an event exists exactly when its change committed. No business rule lives
 * here: each context decides what it emits and with what data; this module only writes the rows, unnumbered, for
 * `EventSequencer` (src/platform/events/sequencer.ts) to number after the commit.
 */
import { type SQL, sql } from 'drizzle-orm';
import { v7 as uuidv7 } from 'uuid';
import type { Executor } from '../db/open.js';

/** One event as a context describes it. */
export interface OutboxEvent {
  /** The event's ID (a UUID); a new UUIDv7 when absent. */
  id?: string;
  /** The CloudEvents `type`, e.g. `purpose.created` (the list: docs/events.md). */
  type: string;
  /** The individual the event is about (a user ID), or null. */
  subject: string | null;
  /** When the change happened; now when absent. */
  occurredAt?: Date;
  /** The payload (the CloudEvents `data`), a JSON object. */
  data: Record<string, unknown>;
}

/**
 * Writes events of one organisation into the outbox, in the caller's transaction and in array order (their `pos`).
 * Call it inside the change's transaction, after the change's own writes, and wake the sequencer after the commit
 * (`EventSequencer.wake`); a row nobody wakes for is numbered by the sequencer's sweep.
 * @param tx - the change's transaction.
 * @param orgId - the organisation whose feed the events join.
 * @param events - the events, in the order they happened; none writes nothing.
 * @throws the database's error (the caller's transaction then rolls back, change and events together).
 */
export async function appendOrganisationEvents(tx: Executor, orgId: string, events: OutboxEvent[]): Promise<void> {
  if (events.length === 0) return;
  const rows = sql.join(
    events.map(
      (e) =>
        sql`(${e.id ?? uuidv7()}::uuid, ${orgId}::uuid, ${e.type}, ${e.subject}::uuid,
          ${(e.occurredAt ?? new Date()).toISOString()}::timestamptz, ${JSON.stringify(e.data)}::jsonb, false)`,
    ),
    sql`, `,
  );
  await tx.execute(sql`INSERT INTO ${OUTBOX_TABLE} ${OUTBOX_COLUMNS} VALUES ${rows}`);
}

/** The outbox table, for a statement that writes its events itself (a `WITH` item of a larger insert). */
export const OUTBOX_TABLE = sql.raw('organisation_events');

/**
 * The columns such a statement fills, in order: `(id, org_id, type, subject, occurred_at, data, held)`; `pos` is
 * drawn from its sequence as each row is inserted (so an `INSERT … SELECT … ORDER BY` keeps that order) and `seq`
 * stays null until the sequencer numbers the row. A held row (`held` true) is not numbered before
 * `releaseOrganisationEvents` releases it.
 */
export const OUTBOX_COLUMNS: SQL = sql.raw('(id, org_id, type, subject, occurred_at, data, held)');

/** What releasing a held event adds to its `data` (a JSON object merged into it). */
export interface Release {
  /** The held event's ID. */
  id: string;
  /** Keys added to its `data`. */
  data: Record<string, unknown>;
}

/**
 * Releases held events of one organisation, in the caller's transaction, adding `data` to each; the sequencer numbers
 * them from the commit on (wake it after the commit). Used by the consent chain's sealer: a consent event enters the
 * feed with its `HistorySeq` (docs/events.md "Payloads").
 * @param releases - the events; none writes nothing.
 * @throws the database's error (the caller's transaction then rolls back).
 */
export async function releaseOrganisationEvents(tx: Executor, orgId: string, releases: Release[]): Promise<void> {
  if (releases.length === 0) return;
  await tx.execute(sql`UPDATE ${OUTBOX_TABLE} e SET held = false, data = e.data || v.data
    FROM jsonb_to_recordset(${JSON.stringify(releases)}::jsonb) AS v(id uuid, data jsonb)
    WHERE e.org_id = ${orgId}::uuid AND e.id = v.id AND e.held`);
}
