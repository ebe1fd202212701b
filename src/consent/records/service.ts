/**
 * The rules of consent records (docs/api.md "Permissions and consents", the seven operations on an individual's record;
 * docs/decisions/0008-consent-records-and-catalogue.md). Every change is applied under the record's
 * row lock and appends its evidence in the same transaction (see `consent/evidence/chain.ts`).
 */

import type { RolesCache } from '../../organisations/index.js';
import { NotFound } from '../../platform/core/errors.js';
import type { Principal } from '../../platform/core/principal.js';
import type { Db } from '../../platform/db/open.js';
import { isId } from '../../platform/util/ids.js';
import type { Actor, Channel, EventDraft } from '../evidence/chain.js';
import type { ChainSealer } from '../evidence/sealer.js';
import { type ConsentValue, defaultConsent, effectiveValue, expiryOf } from '../model/values.js';
import type { RetentionRow } from '../retention/service.js';
import { type Access, authorise, decideAccess } from './access.js';
import type { GroupCommit } from './group-commit.js';
import { type PurposeState, presentPurpose, purposeStatus } from './present.js';
import type { RecordViews } from './reads.js';
import type { ConsentRecordBody, UpdateResultBody } from './schemas.js';
import type { ConsentWrite, RecordRow } from './store.js';
import * as store from './store.js';

/** The request a change came through, for its evidence. */
export interface RequestMeta extends Channel {
  requestId: string;
}

/** Names one consent record in a path. */
export interface RecordPath {
  orgId: string;
  userId: string;
  /** Absent on `GET .../users/{userID}/consents`. */
  consentId?: string;
}

/** One attribute's new value. */
export interface Change {
  attributeId: string;
  value: ConsentValue;
  /** days (0 = no time limit) */
  days: number;
}

/** A consent record as its read operations see it. */
export interface RecordRead {
  record: store.RecordRow;
  /** Its purposes (all, or the one asked for) with their consents. */
  states: PurposeState[];
  /** The organisation's data retention setting. */
  retention: RetentionRow;
}

/** Matches no purpose: stands in for a malformed purpose ID, which must still be authorised first. */
const NO_PURPOSE = '00000000-0000-0000-0000-000000000000';

/** Consent records: reading and changing them. */
export class ConsentService {
  /**
   * @param db - the database.
   * @param sealer - woken after each change, to seal its events into the chain.
   * @param views - the record reads (batched under load), with purposes and data attributes from the cached catalogues.
   * @param roles - the cached roles of users in organisations (the access check).
   * @param writes - the group commit that the optimistic writes go through.
   */
  constructor(
    private readonly db: Db,
    private readonly sealer: ChainSealer,
    private readonly views: RecordViews,
    private readonly roles: RolesCache,
    private readonly writes: GroupCommit,
  ) {}

  /**
   * Authorises the caller and finds the record of the path.
   * @throws {NotFound} when the record does not exist, the individual is not subscribed, or
   *   `consentId` is not the record's; {AccessDenied} see `authorise`.
   */
  async open(
    principal: Principal,
    path: RecordPath,
    access: Access,
  ): Promise<{ actor: Actor; record: store.RecordRow }> {
    const actor = await authorise(this.roles, principal, path.orgId, path.userId, access);
    const record = await store.findRecord(this.db, path.orgId, path.userId);
    if (!record || (access !== 'history' && !record.subscribed)) throw new NotFound('Consent record not found');
    if (path.consentId !== undefined && path.consentId !== record.id) throw new NotFound('Consent record not found');
    return { actor, record };
  }

  /**
   * Reads a record for the read operations in one round trip (`readRecordView`): authorises the
   * caller for `read`, finds the record of the path, and its purposes with their consents.
   * @param purposeId - restricts to that purpose (from the path); absent reads them all.
   * @throws {NotFound} when the organisation, the record or the purpose is not there, or the
   *   individual is not subscribed; {AccessDenied} see `decideAccess`.
   */
  async read(principal: Principal, path: RecordPath, purposeId?: string): Promise<RecordRead> {
    const { read } = await this.view(principal, path, 'read', purposeId);
    if (purposeId !== undefined && read.states.length === 0) throw new NotFound('Purpose not found');
    return read;
  }

  /**
   * The one round trip of `read` and `change`: authorises the caller for `access` and finds the
   * subscribed individual's record of the path with its purposes (all, or `purposeId`'s).
   * @param purposeId - restricts to that purpose; undefined reads them all.
   * @throws {NotFound} | {AccessDenied} as `read` says.
   */
  private async view(
    principal: Principal,
    path: RecordPath,
    access: 'read' | 'write',
    purposeId: string | undefined,
  ): Promise<{ actor: Actor; read: RecordRead }> {
    if (!isId(path.orgId) || !isId(path.userId)) throw new NotFound('Consent record not found');
    const purpose = purposeId === undefined ? null : isId(purposeId) ? purposeId : NO_PURPOSE;
    const view = await this.views.read({
      orgId: path.orgId,
      userId: path.userId,
      principalId: principal.userId,
      purposeId: purpose,
    });
    const actor = decideAccess(principal, view?.roles ?? null, path.userId, access);
    const record = view?.record;
    if (!view || !record?.subscribed || (path.consentId !== undefined && path.consentId !== record.id))
      throw new NotFound('Consent record not found');
    return { actor, read: { record, states: view.states, retention: view.retention } };
  }

  /**
   * The whole record (docs/api.md "Resources"). Purposes without attributes are left out (docs/api.md).
   * @param read - from `read`, without a purpose.
   * @param withRetention - include `DataRetention` per purpose (left out of get-by-ID).
   */
  recordBody({ record, states, retention }: RecordRead, withRetention: boolean): ConsentRecordBody {
    const now = new Date();
    const purposes = states
      .filter((s) => s.attributes.length > 0)
      .map((s) => presentPurpose(s, now, withRetention ? retention : undefined));
    return { ID: record.id, OrgID: record.orgId, UserID: record.userId, ConsentsAndPurposes: purposes };
  }

  /**
   * The purpose consents record (docs/api.md "Resources"; `ID` is the purpose's, docs/api.md).
   * @param read - from `read`, with a purpose.
   */
  purposeBody({ record, states, retention }: RecordRead) {
    const state = states[0]!;
    const { DataRetention, ...consents } = presentPurpose(state, new Date(), retention);
    return {
      ID: state.purpose.id,
      ConsentID: record.id,
      OrgID: record.orgId,
      UserID: record.userId,
      DataRetention: DataRetention!,
      Consents: consents,
    };
  }

  /**
   * `Allow` when at least one attribute of the purpose counts as consented, else `Disallow`.
   * @param read - from `read`, with a purpose.
   */
  status({ states }: RecordRead): { Consented: ConsentValue } {
    return { Consented: purposeStatus(states[0]!, new Date()) };
  }

  /**
   * Changes attributes of one purpose of a record (docs/api.md "Permissions and consents" PATCH of a purpose or an attribute, POST of a
   * purpose status): reads and authorises as `read` does, then stores the new values together with one event per
   * attribute (old and new value and days, actor, channel) in one statement that writes only if the record's
   * version is still the one read (`store.writeChangeIfUnchanged`): two round trips. That write goes through the
   * group commit (`GroupCommit`), so under load it shares one statement and one commit with other records'
   * changes. When another change came in between, it takes the record's row lock in a transaction, re-reads the
   * purpose's stored consents and writes from those. The events are sealed into the chain after the commit
   * (`ChainSealer`).
   * @param changes - by attribute, or `{all}`: every attribute of the purpose to one value with Days 0.
   * @param wholeRecord - answer every purpose of the record (POST status), not only this one.
   * @returns the record as it is after the change (the purpose's consents as written against, changed).
   * @throws {NotFound} for an unknown record, purpose, or an attribute that is not the purpose's;
   *   {AccessDenied} when the caller may not write (see `decideAccess`).
   */
  async change(
    principal: Principal,
    path: RecordPath,
    purposeId: string,
    changes: Change[] | { all: ConsentValue },
    meta: RequestMeta,
    wholeRecord = false,
  ): Promise<RecordRead> {
    const { actor, read } = await this.view(principal, path, 'write', wholeRecord ? undefined : purposeId);
    const { record, states } = read;
    const state = states.find((s) => s.purpose.id === purposeId);
    if (!state) throw new NotFound('Purpose not found');
    const list =
      'all' in changes ? state.attributes.map((a) => ({ attributeId: a.id, value: changes.all, days: 0 })) : changes;
    if (list.some((c) => !state.attributes.some((a) => a.id === c.attributeId)))
      throw new NotFound('Attribute not found in this purpose');
    const now = new Date();
    // Optimistic: the old values are the view's, and the statement writes only if no change came
    // in between (the record's version). Otherwise lock the record, re-read and write
    // (docs/decisions/0006-consent-concurrency.md "Concurrency").
    const optimistic = draftChange(record, state, list, now, actor, meta);
    if (
      !(await this.writes.write({
        orgId: record.orgId,
        rows: optimistic.rows,
        events: optimistic.events,
        readVersion: record.version,
      }))
    ) {
      await this.db.transaction(async (tx) => {
        const stored = await store.lockAndReadConsents(tx, record.id, purposeId);
        // The purpose's consents as of the lock: what the events' old values are taken from.
        for (const a of state.attributes)
          a.consent = stored.get(a.id) ?? defaultConsent(state.purpose.lawfulUsage, record.createdAt);
        const locked = draftChange(record, state, list, now, actor, meta);
        await store.writeChange(tx, record.orgId, locked.rows, locked.events);
      });
    }
    this.sealer.wake(record.orgId);
    for (const c of list)
      state.attributes.find((a) => a.id === c.attributeId)!.consent = {
        value: c.value,
        days: c.days,
        decidedAt: now,
        isDefault: false,
      };
    return read;
  }

  /**
   * The attribute-consent update result of docs/api.md "Resources" for one purpose.
   * @param read - from `change`, of that purpose.
   */
  updateResult({ record, states }: RecordRead, purposeId: string): UpdateResultBody {
    const state = states.find((s) => s.purpose.id === purposeId)!;
    const now = new Date();
    const consents = state.attributes.map((a) => {
      const value = effectiveValue(a.consent, now);
      return {
        Status: { Consented: value, TimeStamp: a.consent.decidedAt.toISOString(), Days: a.consent.days },
        Value: '',
        TemplateID: a.id,
      };
    });
    const allowAll = consents.length > 0 && consents.every((c) => c.Status.Consented === 'Allow');
    return {
      ID: record.id,
      OrgID: record.orgId,
      UserID: record.userId,
      Purposes: [{ ID: purposeId, AllowAll: allowAll, Consents: consents }],
    };
  }
}

/**
 * The consents to store and the events to append for a change, taking the old values from `state`.
 * @param now - the instant of the change (events' `occurredAt`, consents' `decidedAt`).
 */
function draftChange(
  record: RecordRow,
  state: PurposeState,
  list: Change[],
  now: Date,
  actor: Actor,
  meta: RequestMeta,
): { rows: ConsentWrite[]; events: EventDraft[] } {
  const purposeId = state.purpose.id;
  const events = list.map((c) => {
    const current = state.attributes.find((a) => a.id === c.attributeId)!.consent;
    return {
      recordId: record.id,
      userId: record.userId,
      purposeId,
      attributeId: c.attributeId,
      oldValue: effectiveValue(current, now),
      newValue: c.value,
      oldDays: current.days,
      newDays: c.days,
      occurredAt: now.toISOString(),
      actor,
      channel: { endpoint: meta.endpoint, userAgent: meta.userAgent },
      requestId: meta.requestId,
    };
  });
  const rows = list.map((c) => ({
    recordId: record.id,
    purposeId,
    attributeId: c.attributeId,
    userId: record.userId,
    value: c.value,
    days: c.days,
    decidedAt: now,
    expiresAt: expiryOf(c.value, c.days, now),
  }));
  return { rows, events };
}
