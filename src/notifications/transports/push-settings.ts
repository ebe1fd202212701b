/**
 * An organisation's push credentials as `PUT …/notification-transports` changes them
 * (docs/notifications.md "Mobile push"): checked, sealed under the master key, and never shown again;
 * admins see only their public identifiers.
 */

import { InvalidRequest } from '../../platform/core/errors.js';
import type { MasterKey } from '../../platform/crypto/master-key.js';
import { apnsProblem } from './apns.js';
import { parseServiceAccount } from './fcm.js';
import type { TransportRow } from './store.js';

/** The sealing purpose of FCM service-account keys. */
export const FCM_KEY_PURPOSE = 'fcm-service-account';
/** The sealing purpose of APNs `.p8` keys. */
export const APNS_KEY_PURPOSE = 'apns-key';

/** The push part of a change of transports; an absent field keeps its setting, `null` removes it. */
export interface PushInput {
  /** The service-account key file, as its JSON text or the parsed object. */
  fcm?: { serviceaccount: string | object } | null;
  /** `key` (the `.p8` PEM) may be left out to keep the stored one while changing the rest. */
  apns?: {
    key?: string;
    keyid: string;
    teamid: string;
    bundleid: string;
    environment?: 'production' | 'sandbox';
  } | null;
}

/** The stored push columns. */
export type PushColumns = Pick<
  TransportRow,
  | 'fcmProjectId'
  | 'fcmClientEmail'
  | 'fcmKeySealed'
  | 'apnsKeySealed'
  | 'apnsKeyId'
  | 'apnsTeamId'
  | 'apnsBundleId'
  | 'apnsProduction'
>;

/** The push transports as admins see them: identifiers only, never a key. */
export interface PushView {
  FCM: { Enabled: boolean; ProjectID: string; ClientEmail: string };
  APNs: { Enabled: boolean; KeyID: string; TeamID: string; BundleID: string; Environment: 'production' | 'sandbox' };
}

/**
 * The push columns after `input`.
 * @param row - the stored row, or null.
 * @throws {InvalidRequest} when a key is malformed or a required field is missing; nothing is stored then.
 */
export function applyPush(row: TransportRow | null, input: PushInput, master: MasterKey): PushColumns {
  const next: PushColumns = {
    fcmProjectId: row?.fcmProjectId ?? null,
    fcmClientEmail: row?.fcmClientEmail ?? null,
    fcmKeySealed: row?.fcmKeySealed ?? null,
    apnsKeySealed: row?.apnsKeySealed ?? null,
    apnsKeyId: row?.apnsKeyId ?? null,
    apnsTeamId: row?.apnsTeamId ?? null,
    apnsBundleId: row?.apnsBundleId ?? null,
    apnsProduction: row?.apnsProduction ?? true,
  };
  if (input.fcm === null) Object.assign(next, { fcmProjectId: null, fcmClientEmail: null, fcmKeySealed: null });
  else if (input.fcm !== undefined) {
    const raw = input.fcm.serviceaccount;
    const json = typeof raw === 'string' ? raw : JSON.stringify(raw);
    const account = parseServiceAccount(json);
    if (typeof account === 'string') throw new InvalidRequest(`fcm.serviceaccount ${account}`);
    // Threat: a leaked database or backup must not yield a key that can message every device of the app.
    // The same key sent again keeps its sealed copy, so that re-saving changes nothing (and is not audited).
    const same = next.fcmKeySealed !== null && sameJson(master.open(next.fcmKeySealed, FCM_KEY_PURPOSE), json);
    if (!same) next.fcmKeySealed = master.seal(json, FCM_KEY_PURPOSE);
    next.fcmProjectId = account.projectId;
    next.fcmClientEmail = account.clientEmail;
  }
  if (input.apns === null)
    Object.assign(next, { apnsKeySealed: null, apnsKeyId: null, apnsTeamId: null, apnsBundleId: null });
  else if (input.apns !== undefined) {
    const a = input.apns;
    const stored = next.apnsKeySealed === null ? null : master.open(next.apnsKeySealed, APNS_KEY_PURPOSE);
    const key = a.key ?? stored;
    if (key === null) throw new InvalidRequest('apns.key is required');
    const problem = apnsProblem({ key, keyId: a.keyid, teamId: a.teamid, bundleId: a.bundleid });
    if (problem) throw new InvalidRequest(problem);
    // Threat: as for FCM, a leaked database must not yield the team's APNs signing key. The same key keeps its sealed copy.
    if (a.key !== undefined && a.key !== stored) next.apnsKeySealed = master.seal(a.key, APNS_KEY_PURPOSE);
    next.apnsKeyId = a.keyid;
    next.apnsTeamId = a.teamid;
    next.apnsBundleId = a.bundleid;
    next.apnsProduction = (a.environment ?? 'production') === 'production';
  }
  return next;
}

/** Whether two JSON texts hold the same value (key order and spacing aside for the top level's text). */
function sameJson(a: string, b: string): boolean {
  try {
    return JSON.stringify(JSON.parse(a)) === JSON.stringify(JSON.parse(b));
  } catch {
    return false;
  }
}

/**
 * What a change of the push columns changed, for the audit entry of `PUT …/notification-transports`
 * (docs/notifications.md "Transports"): `fcm` is `set` (none before), `replaced` (another key) or
 * `removed`; `apns` is `set`, `removed` or `changed`, with `apnsChanged` naming the changed fields
 * (`key`, `keyid`, `teamid`, `bundleid`, `environment`). A field left as it was is not named; never a key.
 * @param before - the stored columns (null: none stored); `after` the columns to store.
 */
export function pushChanges(before: PushColumns | null, after: PushColumns): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  const fcm = lifecycle(before?.fcmKeySealed ?? null, after.fcmKeySealed);
  if (fcm) out.fcm = fcm === 'changed' ? 'replaced' : fcm;
  const apns = lifecycle(before?.apnsKeySealed ?? null, after.apnsKeySealed);
  if (apns === 'set' || apns === 'removed') out.apns = apns;
  else if (before && after.apnsKeySealed !== null) {
    const fields: Array<[string, unknown, unknown]> = [
      ['key', before.apnsKeySealed, after.apnsKeySealed],
      ['keyid', before.apnsKeyId, after.apnsKeyId],
      ['teamid', before.apnsTeamId, after.apnsTeamId],
      ['bundleid', before.apnsBundleId, after.apnsBundleId],
      ['environment', before.apnsProduction, after.apnsProduction],
    ];
    const changed = fields.filter(([, a, b]) => a !== b).map(([name]) => name);
    if (changed.length > 0) Object.assign(out, { apns: 'changed', apnsChanged: changed });
  }
  return out;
}

/** How a sealed value went: `set`, `removed`, `changed`, or undefined when it stayed. */
function lifecycle(before: string | null, after: string | null): 'set' | 'removed' | 'changed' | undefined {
  if (before === after) return undefined;
  if (before === null) return 'set';
  return after === null ? 'removed' : 'changed';
}

/** The push transports of `row` as admins see them. */
export function pushView(row: PushColumns | null): PushView {
  return {
    FCM: {
      Enabled: Boolean(row?.fcmKeySealed),
      ProjectID: row?.fcmProjectId ?? '',
      ClientEmail: row?.fcmClientEmail ?? '',
    },
    APNs: {
      Enabled: Boolean(row?.apnsKeySealed),
      KeyID: row?.apnsKeyId ?? '',
      TeamID: row?.apnsTeamId ?? '',
      BundleID: row?.apnsBundleId ?? '',
      Environment: row?.apnsProduction === false ? 'sandbox' : 'production',
    },
  };
}
