/**
 * An organisation's push credentials as `PUT …/notification-transports` changes them
 * (docs/notifications.md "Mobile push"): checked, sealed under the master key, and never shown again;
 * admins see only their public identifiers.
 */
import type { MasterKey } from '../crypto/master-key.js';
import { BadRequest } from '../http/errors.js';
import { apnsProblem } from './push-apns.js';
import { parseServiceAccount } from './push-fcm.js';
import { APNS_KEY_PURPOSE, FCM_KEY_PURPOSE } from './setup.js';
import type { TransportRow } from './transports-store.js';

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
 * @throws {BadRequest} when a key is malformed or a required field is missing; nothing is stored then.
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
    if (typeof account === 'string') throw new BadRequest(`fcm.serviceaccount ${account}`);
    // Threat: a leaked database or backup must not yield a key that can message every device of the app.
    next.fcmKeySealed = master.seal(json, FCM_KEY_PURPOSE);
    next.fcmProjectId = account.projectId;
    next.fcmClientEmail = account.clientEmail;
  }
  if (input.apns === null)
    Object.assign(next, { apnsKeySealed: null, apnsKeyId: null, apnsTeamId: null, apnsBundleId: null });
  else if (input.apns !== undefined) {
    const a = input.apns;
    if (a.key === undefined && !next.apnsKeySealed) throw new BadRequest('apns.key is required');
    const key = a.key ?? master.open(next.apnsKeySealed!, APNS_KEY_PURPOSE);
    const problem = apnsProblem({ key, keyId: a.keyid, teamId: a.teamid, bundleId: a.bundleid });
    if (problem) throw new BadRequest(problem);
    // Threat: as for FCM, a leaked database must not yield the team's APNs signing key.
    if (a.key !== undefined) next.apnsKeySealed = master.seal(a.key, APNS_KEY_PURPOSE);
    next.apnsKeyId = a.keyid;
    next.apnsTeamId = a.teamid;
    next.apnsBundleId = a.bundleid;
    next.apnsProduction = (a.environment ?? 'production') === 'production';
  }
  return next;
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
