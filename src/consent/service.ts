/**
 * The rules of consent records (SPEC 4.3, the seven operations on an individual's record; issue #3).
 * Every change is applied under the record's row lock and appends its evidence in the same
 * transaction (see `evidence.ts`).
 */
import type { Db } from '../db/open.js';
import type { Principal } from '../http/auth.js';
import { NotFound } from '../http/errors.js';
import { readRetention } from '../retention/store.js';
import { isId } from '../util/ids.js';
import { authorise, type Access } from './access.js';
import type { Actor, Channel } from './evidence.js';
import { appendEvents } from './evidence-store.js';
import { presentPurpose, purposeStatus, type PurposeState, toPurposeStates } from './present.js';
import type { ConsentRecordBody, UpdateResultBody } from './schemas.js';
import * as store from './store.js';
import { type ConsentValue, effectiveValue, expiryOf } from './values.js';

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

/** Consent records: reading and changing them. */
export class ConsentService {
  constructor(private readonly db: Db) {}

  /**
   * Authorises the caller and finds the record of the path.
   * @throws {NotFound} when the record does not exist, the individual is not subscribed, or
   *   `consentId` is not the record's; {Forbidden} see `authorise`.
   */
  async open(principal: Principal, path: RecordPath, access: Access): Promise<{ actor: Actor; record: store.RecordRow }> {
    const actor = await authorise(this.db, principal, path.orgId, path.userId, access);
    const record = await store.findRecord(this.db, path.orgId, path.userId);
    if (!record || (access !== 'history' && !record.subscribed)) throw new NotFound('Consent record not found');
    if (path.consentId !== undefined && path.consentId !== record.id) throw new NotFound('Consent record not found');
    return { actor, record };
  }

  /** The record's purposes (all, or one) with their consents. @throws {NotFound} for an unknown purpose. */
  async states(record: store.RecordRow, purposeId?: string): Promise<PurposeState[]> {
    if (purposeId !== undefined && !isId(purposeId)) throw new NotFound('Purpose not found');
    const states = toPurposeStates(await store.readConsents(this.db, record.orgId, record.id, purposeId), record.createdAt);
    if (purposeId !== undefined && states.length === 0) throw new NotFound('Purpose not found');
    return states;
  }

  /**
   * The whole record (SPEC 2). Purposes without attributes are left out (NOTES.md).
   * @param withRetention - include `DataRetention` per purpose (left out of get-by-ID).
   */
  async recordBody(record: store.RecordRow, withRetention: boolean): Promise<ConsentRecordBody> {
    const now = new Date();
    const retention = withRetention ? await readRetention(this.db, record.orgId) : undefined;
    const states = (await this.states(record)).filter((s) => s.attributes.length > 0);
    return { ID: record.id, OrgID: record.orgId, UserID: record.userId, ConsentsAndPurposes: states.map((s) => presentPurpose(s, now, retention)) };
  }

  /** The purpose consents record (SPEC 2; `ID` is the purpose's, NOTES.md). */
  async purposeBody(record: store.RecordRow, purposeId: string) {
    const now = new Date();
    const [state] = await this.states(record, purposeId);
    const body = presentPurpose(state!, now, await readRetention(this.db, record.orgId));
    const { DataRetention, ...consents } = body;
    return { ID: state!.purpose.id, ConsentID: record.id, OrgID: record.orgId, UserID: record.userId, DataRetention: DataRetention!, Consents: consents };
  }

  /** `Allow` when at least one attribute of the purpose counts as consented, else `Disallow`. */
  async status(record: store.RecordRow, purposeId: string): Promise<{ Consented: ConsentValue }> {
    const [state] = await this.states(record, purposeId);
    return { Consented: purposeStatus(state!, new Date()) };
  }

  /**
   * Applies changes to one purpose of a record: under the record's lock, checks that each
   * attribute belongs to the purpose, stores the values and appends one event per attribute.
   * @param changes - by attribute, or `{all}`: every attribute of the purpose to one value with Days 0.
   * @throws {NotFound} for an unknown purpose or an attribute that is not the purpose's.
   */
  async apply(record: store.RecordRow, actor: Actor, meta: RequestMeta, purposeId: string, changes: Change[] | { all: ConsentValue }): Promise<void> {
    if (!isId(purposeId)) throw new NotFound('Purpose not found');
    await this.db.transaction(async (tx) => {
      await store.lockRecord(tx, record.id);
      const [state] = toPurposeStates(await store.readConsents(tx, record.orgId, record.id, purposeId), record.createdAt);
      if (!state) throw new NotFound('Purpose not found');
      const list = 'all' in changes ? state.attributes.map((a) => ({ attributeId: a.id, value: changes.all, days: 0 })) : changes;
      const now = new Date();
      const contents = list.map((c) => {
        const current = state.attributes.find((a) => a.id === c.attributeId);
        if (!current) throw new NotFound('Attribute not found in this purpose');
        return {
          recordId: record.id,
          userId: record.userId,
          purposeId,
          attributeId: c.attributeId,
          oldValue: effectiveValue(current.consent, now),
          newValue: c.value,
          oldDays: current.consent.days,
          newDays: c.days,
          occurredAt: now.toISOString(),
          actor,
          channel: { endpoint: meta.endpoint, userAgent: meta.userAgent },
          requestId: meta.requestId,
        };
      });
      await store.writeConsents(
        tx,
        list.map((c) => ({ recordId: record.id, purposeId, attributeId: c.attributeId, userId: record.userId, value: c.value, days: c.days, decidedAt: now, expiresAt: expiryOf(c.value, c.days, now) })),
      );
      await appendEvents(tx, record.orgId, contents);
    });
  }

  /** The attribute-consent update result of SPEC 2 for one purpose. */
  async updateResult(record: store.RecordRow, purposeId: string): Promise<UpdateResultBody> {
    const [state] = await this.states(record, purposeId);
    const now = new Date();
    const consents = state!.attributes.map((a) => {
      const value = effectiveValue(a.consent, now);
      return { Status: { Consented: value, TimeStamp: a.consent.decidedAt.toISOString(), Days: a.consent.days }, Value: '', TemplateID: a.id };
    });
    const allowAll = consents.length > 0 && consents.every((c) => c.Status.Consented === 'Allow');
    return { ID: record.id, OrgID: record.orgId, UserID: record.userId, Purposes: [{ ID: purposeId, AllowAll: allowAll, Consents: consents }] };
  }
}
