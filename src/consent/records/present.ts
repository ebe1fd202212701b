/** Builds the consent bodies (docs/api.md "Resources") from stored rows (docs/api.md "Responses"). */

import type { ConsentRow } from '../model/row.js';
import {
  type ConsentValue,
  counts,
  defaultConsent,
  effectiveValue,
  remainingDays,
  type StoredConsent,
} from '../model/values.js';
import type { RetentionRow } from '../retention/service.js';
import type { ConsentsAndPurposeBody } from './schemas.js';

/** A purpose of a record with its attributes' consents resolved (defaults applied). */
export interface PurposeState {
  purpose: { id: string; name: string; description: string; lawfulUsage: boolean; policyUrl: string };
  attributes: Array<{ id: string; name: string; consent: StoredConsent }>;
}

/**
 * Groups rows by purpose and applies the defaults of undecided attributes.
 * @param rows - from `readRecordView`, purpose-ordered.
 * @param recordCreatedAt - when the record was created (the time of a default).
 */
export function toPurposeStates(rows: ConsentRow[], recordCreatedAt: Date): PurposeState[] {
  const states = new Map<string, PurposeState>();
  for (const r of rows) {
    let state = states.get(r.purposeId);
    if (!state) {
      state = {
        purpose: {
          id: r.purposeId,
          name: r.purposeName,
          description: r.purposeDescription,
          lawfulUsage: r.lawfulUsage,
          policyUrl: r.policyUrl,
        },
        attributes: [],
      };
      states.set(r.purposeId, state);
    }
    if (!r.attributeId || r.attributeName === null) continue;
    const consent: StoredConsent =
      r.value && r.decidedAt
        ? { value: r.value, days: r.days ?? 0, decidedAt: r.decidedAt, isDefault: false }
        : defaultConsent(r.lawfulUsage, recordCreatedAt);
    state.attributes.push({ id: r.attributeId, name: r.attributeName, consent });
  }
  return [...states.values()];
}

/**
 * `DataRetention.Expiry`: when retention is enabled and the purpose is consented, the latest
 * consent to it plus the retention period; otherwise "" (docs/decisions/0008-consent-records-and-catalogue.md).
 * @param state - the purpose.
 * @param retention - the organisation's setting (period in seconds).
 * @param now - the instant of reading.
 */
export function retentionExpiry(state: PurposeState, retention: RetentionRow | null, now: Date): string {
  if (!retention?.enabled) return '';
  const consented = state.attributes.filter((a) => counts(a.consent, now));
  if (consented.length === 0) return '';
  const latest = Math.max(...consented.map((a) => a.consent.decidedAt.getTime()));
  return new Date(latest + retention.periodSeconds * 1000).toISOString();
}

/**
 * One ConsentsAndPurpose (docs/api.md "Resources").
 * @param retention - include `DataRetention` computed from this setting; undefined leaves it out.
 */
export function presentPurpose(
  state: PurposeState,
  now: Date,
  retention?: RetentionRow | null,
): ConsentsAndPurposeBody {
  const body: ConsentsAndPurposeBody = {
    Purpose: {
      ID: state.purpose.id,
      Name: state.purpose.name,
      Description: state.purpose.description,
      LawfulUsage: state.purpose.lawfulUsage,
      PolicyURL: state.purpose.policyUrl,
    },
    Count: { Total: state.attributes.length, Consented: state.attributes.filter((a) => counts(a.consent, now)).length },
    Consents: state.attributes.map((a) => {
      const value = effectiveValue(a.consent, now);
      return {
        ID: a.id,
        Description: a.name,
        Value: '',
        Status: {
          Consent: value,
          Consented: value,
          TimeStamp: a.consent.decidedAt.toISOString(),
          Days: a.consent.days,
          Remaining: remainingDays(a.consent, now),
        },
      };
    }),
  };
  if (retention !== undefined) body.DataRetention = { Expiry: retentionExpiry(state, retention, now) };
  return body;
}

/**
 * The purpose status of docs/api.md "Permissions and consents": Allow when at least one attribute counts as consented now.
 * @param state - the purpose.
 * @param now - the instant of reading.
 */
export function purposeStatus(state: PurposeState, now: Date): ConsentValue {
  return state.attributes.some((a) => counts(a.consent, now)) ? 'Allow' : 'Disallow';
}
