/**
 * SQL that writes the consent history: the events of a change, unsealed, in the change's own transaction, with their
 * place in the sealer's queue and in the organisation's event outbox (docs/events.md), in one statement. Reading the
 * history is `store.ts`.
 */
import { type SQL, sql } from 'drizzle-orm';
import { v7 as uuidv7 } from 'uuid';
import type { Executor } from '../../platform/db/open.js';
import { OUTBOX_COLUMNS, OUTBOX_TABLE } from '../../platform/events/outbox.js';
import type { EventDraft } from './chain.js';

/**
 * Writes events in the change's transaction, unsealed: they get an ID (UUIDv7), their organisation
 * and `written` (a sequence, the order of sealing), and a row in the sealer's queue;
 * `ChainSealer` chains them after the commit. Call it while holding the lock of what changed (the
 * record's row, or the attribute consents' rows), so that one record's events are written, and
 * sealed, in the order of its changes. No chain lock is taken here: changes to different records
 * never wait on each other.
 * @param drafts - the events in order, without ID, organisation and seq.
 */
export async function appendEvents(tx: Executor, orgId: string, drafts: EventDraft[]): Promise<void> {
  if (drafts.length === 0) return;
  await tx.execute(sql`WITH ${queuedEventsSql(valuesSource(eventRows(orgId, drafts)))}`);
}

/**
 * The end of a `WITH` list that writes consent events and queues them for sealing, in one statement
 * (see `appendEvents`): `events AS (INSERT INTO consent_events …), INSERT INTO consent_event_queue …`.
 * A caller may add `RETURNING 1`: one row per event written. Every writer of events goes through it,
 * so no event is written without its place in the queue.
 * @param source - a `SELECT` of the event columns in the order of `EVENT_COLUMNS`, in the order the
 *   events happened (`valuesSource` or `recordsetSource`).
 * @param asCte - names the queue insert as this `WITH` item instead of ending the statement with it,
 *   so that the caller's own `SELECT` follows.
 */
export function queuedEventsSql(source: SQL, asCte?: string): SQL {
  const queue = sql`INSERT INTO consent_event_queue (org_id, written, event_id) SELECT org_id, written, id FROM events`;
  return sql`events AS (
      INSERT INTO consent_events ${EVENT_COLUMNS} ${source} RETURNING ${sql.raw(OUTBOX_SOURCE_COLUMNS)}
    ),
    ${outboxSql}${asCte ? sql`, ${sql.raw(asCte)} AS (${queue})` : queue}`;
}

/**
 * The `channel.endpoint` of the AskMe expiry sweep's events (src/consent/records/sweep.ts): their outbox type is
 * `consent.expired` (docs/events.md).
 */
export const EXPIRY_ENDPOINT = 'askme-expiry-sweep';

/** What `events` returns: what the queue and the outbox read of each event written. */
const OUTBOX_SOURCE_COLUMNS =
  'org_id, written, id, record_id, user_id, purpose_id, attribute_id, old_value, new_value, old_days, new_days, ' +
  'occurred_at, actor, channel';

/**
 * The outbox events of the consent events just written (docs/events.md "Consent events"), as a `WITH` item of the
 * same statement: one per event, with its ID, in the order written, so that the feed carries every change the
 * history records and nothing the history does not. Each is held until the sealer seals its history event and adds
 * the chain's `HistorySeq` (`releaseOrganisationEvents`).
 */
const outboxSql = sql`outbox AS (
      INSERT INTO ${OUTBOX_TABLE} ${OUTBOX_COLUMNS}
      SELECT id, org_id,
        CASE WHEN channel->>'endpoint' = ${sql.raw(`'${EXPIRY_ENDPOINT}'`)} THEN 'consent.expired'
          WHEN new_value = 'Allow' THEN 'consent.allowed'
          WHEN new_value = 'Disallow' THEN 'consent.disallowed'
          ELSE 'consent.askme' END,
        user_id, occurred_at,
        jsonb_build_object('OrganizationID', org_id, 'UserID', user_id, 'ConsentID', record_id,
          'PurposeID', purpose_id, 'AttributeID', attribute_id, 'OldValue', old_value, 'NewValue', new_value,
          'OldDays', old_days, 'NewDays', new_days, 'HistoryEventID', id,
          'Actor', jsonb_build_object('Type', actor->>'type', 'UserID', coalesce(actor->>'userId', ''),
            'APIKeyID', coalesce(actor->>'apiKeyId', '')),
          'Channel', jsonb_build_object('Endpoint', channel->>'endpoint', 'UserAgent', channel->>'userAgent')),
        true
      FROM events ORDER BY written
    )`;

/**
 * Events from `VALUES` rows, for `queuedEventsSql`.
 * @param rows - `eventRows`, or `EVENT_PLACEHOLDERS`.
 * @param only - a `WHERE` clause on which the insert depends (`writeChange`'s version check), or empty.
 */
export function valuesSource(rows: SQL, only: SQL = sql``): SQL {
  return sql`SELECT * FROM (VALUES ${rows}) AS v ${only}`;
}

/**
 * Events from a JSON array of `eventRecord`s, for `queuedEventsSql`, in array order: those whose
 * `change` passes `only` (`store.writeChangesIfUnchanged`: a change whose version still held).
 * @param events - the JSON text of the array.
 * @param only - a condition on `e.change`.
 */
export function recordsetSource(events: string, only: SQL): SQL {
  const columns = sql.raw(EVENT_FIELDS.map(([column]) => `e.${column}`).join(', '));
  const types = sql.raw(EVENT_FIELDS.map(([column, type]) => `${column} ${type}`).join(', '));
  return sql`SELECT ${columns} FROM json_to_recordset(${events}::json) AS e(n int, change int, ${types})
    WHERE ${only} ORDER BY e.n`;
}

/**
 * One event as a record of `recordsetSource`, with a new UUIDv7 as its ID.
 * @param n - its place in the array (the order of writing).
 * @param change - the index of the change it belongs to.
 */
export function eventRecord(orgId: string, e: EventDraft, n: number, change: number): Record<string, unknown> {
  const values = eventParams(orgId, e);
  const record: Record<string, unknown> = { n, change };
  for (const [column] of EVENT_FIELDS) record[column] = values[`e_${column}`];
  // Objects, not their JSON text: json_to_recordset reads a jsonb column from the JSON value itself.
  record.actor = e.actor;
  record.channel = e.channel;
  return record;
}

/**
 * The `VALUES` rows of events, for `queuedEventsSql`.
 * @param drafts - at least one event, in order.
 */
export function eventRows(orgId: string, drafts: EventDraft[]): SQL {
  return sql.join(
    drafts.map((e) => {
      const values = eventParams(orgId, e);
      return eventTuple((column) => values[`e_${column}`]);
    }),
    sql`, `,
  );
}

/** The columns an event is written with and their SQL types, in order: the one list every writer uses. */
const EVENT_FIELDS: ReadonlyArray<readonly [column: string, type: string]> = [
  ['id', 'uuid'],
  ['org_id', 'uuid'],
  ['record_id', 'uuid'],
  ['user_id', 'uuid'],
  ['purpose_id', 'uuid'],
  ['attribute_id', 'uuid'],
  ['old_value', 'text'],
  ['new_value', 'text'],
  ['old_days', 'int'],
  ['new_days', 'int'],
  ['occurred_at', 'timestamptz'],
  ['actor', 'jsonb'],
  ['channel', 'jsonb'],
  ['request_id', 'text'],
];

/** The column list of an event insert, in the order of `EVENT_PLACEHOLDERS` and `eventRows`. */
export const EVENT_COLUMNS = sql.raw(`(${EVENT_FIELDS.map(([column]) => column).join(', ')})`);

/** One parenthesised row of `EVENT_FIELDS`, each value cast to its column's type. */
function eventTuple(value: (column: string) => unknown): SQL {
  return sql`(${sql.join(
    EVENT_FIELDS.map(([column, type]) => sql`${value(column)}::${sql.raw(type)}`),
    sql`, `,
  )})`;
}

/** The values of `EVENT_COLUMNS` as placeholders `e_<column>`, for a prepared statement that writes one event. */
export const EVENT_PLACEHOLDERS = eventTuple((column) => sql.placeholder(`e_${column}`));

/**
 * The values of one event keyed `e_<column>` (for `EVENT_PLACEHOLDERS`), with a new UUIDv7 as its ID.
 * @param orgId - the organisation whose chain the event joins.
 */
export function eventParams(orgId: string, e: EventDraft): Record<string, unknown> {
  return {
    e_id: uuidv7(),
    e_org_id: orgId,
    e_record_id: e.recordId,
    e_user_id: e.userId,
    e_purpose_id: e.purposeId,
    e_attribute_id: e.attributeId,
    e_old_value: e.oldValue,
    e_new_value: e.newValue,
    e_old_days: e.oldDays,
    e_new_days: e.newDays,
    e_occurred_at: e.occurredAt,
    e_actor: JSON.stringify(e.actor),
    e_channel: JSON.stringify(e.channel),
    e_request_id: e.requestId,
  };
}
