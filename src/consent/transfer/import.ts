/**
 * What `assent import` asks of the consent domain for the individuals' `consentHistory`: the consent
 * history of the platform Assent replaces, recorded as evidence exactly like live changes
 * (docs/operations.md "Consent history"; docs/decisions/0005-consent-evidence.md). Its caller hands
 * `consentHistoryImport` to the import (`app/organisations-as-code/import.ts`), which imports only these types: orgs does
 * not depend on consent, which depends on orgs (docs/development.md, code layout).
 *
 * Each imported event is written through the live path's statements (`store.writeChange` under the
 * records' locks): an event with its original instant, channel endpoint `import`, the original
 * channel as its user agent, and the import run's ID as its request ID; the record's stored consent
 * becomes the last imported event's. After the commit, `ChainSealer` chains the events into the
 * organisation's hash chain, in the order they were written: by time across the organisation.
 */
import { v7 as uuidv7 } from 'uuid';
import type { Db, Executor } from '../../platform/db/open.js';
import { appendEvents } from '../evidence/append-store.js';
import type { Actor, EventDraft } from '../evidence/chain.js';
import { ChainSealer } from '../evidence/sealer.js';
import {
  type ConsentValue,
  choiceOf,
  defaultConsent,
  effectiveValue,
  expiryOf,
  type StoredConsent,
} from '../model/values.js';
import { type ConsentWrite, writeChange } from '../records/store.js';
import { lockRecords, recordedEvents, storedConsents } from './import-store.js';

/** The channel endpoint of every imported event. */
export const IMPORT_ENDPOINT = 'import';

/** Events written per statement (count): 1000 events and consents stay far below 65,535 parameters. */
const CHUNK = 1000;

/** One event of an individual's `consentHistory`, its purpose and data attribute resolved to IDs. */
export interface ImportedConsentEvent {
  purposeId: string;
  attributeId: string;
  /** The purpose's `LawfulUsage`: the default an undecided attribute had before its first event. */
  lawfulUsage: boolean;
  value: ConsentValue;
  /** days (0 = no time limit) */
  days: number;
  /** RFC 3339, as the file gives it (checked by `problems`). */
  at: string;
  /** Who made the change in the replaced platform: the individual (default), or the platform itself (`system`). */
  by?: 'individual' | 'system';
  /** The channel the replaced platform recorded (an app, a web form, …); "" when none. */
  channel?: string;
}

/** One individual's history in one organisation. */
export interface ImportedConsentHistory {
  /** The individual's consent record in the organisation. */
  recordId: string;
  userId: string;
  /** The JSON path of its `consentHistory`, for a refusal's message. */
  path: string;
  /** In the file's order (non-decreasing `at`, see `problems`). */
  events: ImportedConsentEvent[];
}

/** What the import recorded in one organisation (counts of events), or why it refused. */
export type ConsentHistoryOutcome =
  | { status: 'recorded'; recorded: number; skipped: number }
  | { status: 'refused'; problems: string[] };

/** The consent domain's side of the import of consent history. */
export interface ConsentHistoryImport {
  /**
   * Every problem of one individual's list that needs no stored state, each as `[index].at: problem`:
   * an instant that is not RFC 3339 (with a time zone), lies after `now`, or before the previous event's.
   * @param now - the instant of the import.
   */
  problems(events: ReadonlyArray<{ at: string }>, now: Date): string[];
  /**
   * Records the histories in the import's transaction, so that a refusal writes nothing. An event
   * already recorded for the record with the same purpose, attribute, instant, value and days is
   * skipped (a repeated import adds nothing); every other one must not be earlier than the
   * record's last recorded event.
   * @param tx - the import's transaction.
   * @param histories - valid lists (see `problems`), of the organisation's subscribed individuals.
   * @returns `refused` naming each event earlier than an event already recorded.
   */
  record(tx: Executor, orgId: string, histories: ImportedConsentHistory[]): Promise<ConsentHistoryOutcome>;
  /** Seals the organisation's recorded events into its chain; call it after the import's commit. */
  seal(db: Db, orgId: string): Promise<void>;
}

const RFC3339 = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,9})?(Z|[+-]\d{2}:\d{2})$/i;

/** Milliseconds since the epoch of an RFC 3339 instant, or NaN. */
function instant(at: string): number {
  return RFC3339.test(at) ? Date.parse(at) : Number.NaN;
}

const key = (purposeId: string, attributeId: string) => `${purposeId}/${attributeId}`;
const eventKey = (pa: string, at: number, value: string, days: number) => `${pa}/${at}/${value}/${days}`;

/** The events and final consents of one history; `problems` when an event comes before one recorded. */
function draftHistory(
  h: ImportedConsentHistory,
  recorded: { keys: Set<string>; last: number },
  stored: Map<string, StoredConsent>,
  requestId: string,
) {
  const drafts: EventDraft[] = [];
  const finals = new Map<string, ConsentWrite>();
  const problems: string[] = [];
  const state = new Map<string, StoredConsent>();
  let skipped = 0;
  h.events.forEach((e, i) => {
    const pa = key(e.purposeId, e.attributeId);
    const at = new Date(instant(e.at));
    // The API's rule for a value with days (an Allow with days is AskMe, a Disallow keeps none).
    const { value, days } = choiceOf(e.value, e.days);
    if (recorded.keys.has(eventKey(pa, at.getTime(), value, days))) {
      skipped += 1;
      return;
    }
    if (at.getTime() < recorded.last) {
      problems.push(
        `${h.path}[${i}].at: ${e.at} is before the last event already recorded for this consent record ` +
          `(${new Date(recorded.last).toISOString()}); an import only adds history after it`,
      );
      return;
    }
    const current = state.get(pa) ?? stored.get(`${h.recordId}/${pa}`) ?? defaultConsent(e.lawfulUsage, at);
    const actor: Actor = e.by === 'system' ? { type: 'system' } : { type: 'individual', userId: h.userId };
    drafts.push({
      recordId: h.recordId,
      userId: h.userId,
      purposeId: e.purposeId,
      attributeId: e.attributeId,
      oldValue: effectiveValue(current, at),
      newValue: value,
      oldDays: current.days,
      newDays: days,
      occurredAt: at.toISOString(),
      actor,
      channel: { endpoint: IMPORT_ENDPOINT, userAgent: e.channel ?? '' },
      requestId,
    });
    state.set(pa, { value, days, decidedAt: at, isDefault: false });
    finals.set(pa, {
      recordId: h.recordId,
      purposeId: e.purposeId,
      attributeId: e.attributeId,
      userId: h.userId,
      value,
      days,
      decidedAt: at,
      expiresAt: expiryOf(value, days, at),
    });
  });
  return { drafts, rows: [...finals.values()], problems, skipped };
}

/** The consent domain's side of the import (see `ConsentHistoryImport`). */
export const consentHistoryImport: ConsentHistoryImport = {
  problems(events, now) {
    const problems: string[] = [];
    let previous = Number.NEGATIVE_INFINITY;
    events.forEach((e, i) => {
      const at = instant(e.at);
      if (Number.isNaN(at))
        problems.push(`[${i}].at: must be an RFC 3339 date-time with a time zone, e.g. 2026-01-31T12:00:00Z`);
      // Threat: evidence dated in the future would outlive and contradict the changes that follow it.
      else if (at > now.getTime()) problems.push(`[${i}].at: ${e.at} is in the future`);
      else if (at < previous) problems.push(`[${i}].at: ${e.at} is before the previous event of this individual`);
      else previous = at;
    });
    return problems;
  },

  async record(tx, orgId, histories) {
    const recordIds = [...new Set(histories.map((h) => h.recordId))];
    await lockRecords(tx, recordIds);
    const [events, stored] = await Promise.all([recordedEvents(tx, recordIds), storedConsents(tx, recordIds)]);
    const recorded = new Map(recordIds.map((id) => [id, { keys: new Set<string>(), last: Number.NEGATIVE_INFINITY }]));
    for (const e of events) {
      const r = recorded.get(e.recordId)!;
      r.keys.add(eventKey(key(e.purposeId, e.attributeId), e.at, e.value, e.days));
      r.last = Math.max(r.last, e.at);
    }
    const requestId = `import-${uuidv7()}`;
    const drafts: EventDraft[] = [];
    const rows: ConsentWrite[] = [];
    const problems: string[] = [];
    let skipped = 0;
    for (const h of histories) {
      const d = draftHistory(h, recorded.get(h.recordId)!, stored, requestId);
      drafts.push(...d.drafts);
      rows.push(...d.rows);
      problems.push(...d.problems);
      skipped += d.skipped;
    }
    if (problems.length > 0) return { status: 'refused', problems };
    // In time order across the organisation (a stable sort keeps each record's own order): the chain's order.
    drafts.sort((a, b) => Date.parse(a.occurredAt) - Date.parse(b.occurredAt));
    // Each consent row comes from one event or more: there are never more rows than events.
    for (let i = 0; i < drafts.length; i += CHUNK) {
      const [r, e] = [rows.slice(i, i + CHUNK), drafts.slice(i, i + CHUNK)];
      if (r.length > 0) await writeChange(tx, orgId, r, e);
      else await appendEvents(tx, orgId, e);
    }
    return { status: 'recorded', recorded: drafts.length, skipped };
  },

  async seal(db, orgId) {
    await new ChainSealer(db).flush(orgId);
  },
};
