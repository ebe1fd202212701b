/**
 * The access-policy rows of an organisation's accountable administration: its audit log (docs/audit.md) and its
 * staff (docs/staff.md), spread into `ACCESS_POLICY` (src/platform/http/policy.ts), whose header explains the
 * credential kinds. Owner, Admin and Dpo read the audit log and the staff list; only an Owner manages staff, and only
 * signed in with an access token: an API key (which an integration's back end holds) never changes who administers
 * the organisation.
 */

import { Role } from '../core/roles.js';
import type { PolicyRule } from './policy.js';

const { Owner, Admin, Dpo } = Role;

const AUDIT_READERS = {
  credential: 'any',
  who: 'Owner, Admin or Dpo of the organisation',
  orgRoles: [Owner, Admin, Dpo],
} as const;
// Threat: a leaked API key making its thief staff, or locking the Owners out; staff changes need a person's session.
const STAFF_MANAGERS = {
  credential: 'session',
  who: 'Owner of the organisation, with an access token (not an API key)',
  orgRoles: [Owner],
} as const;

/** The rows of the audit log and the staff, by operation name. */
export const ADMIN_POLICY = {
  'orgs.audit-log.read': AUDIT_READERS,
  'orgs.audit-log.export': AUDIT_READERS,
  'orgs.audit-log.verify': AUDIT_READERS,
  'orgs.admins.list': AUDIT_READERS,
  'orgs.admins.invite': STAFF_MANAGERS,
  'orgs.admins.invitations.list': STAFF_MANAGERS,
  'orgs.admins.invitations.revoke': STAFF_MANAGERS,
  'orgs.admins.update': STAFF_MANAGERS,
  'orgs.admins.remove': STAFF_MANAGERS,
  'orgs.staff-policy.read': AUDIT_READERS,
  'orgs.staff-policy.update': STAFF_MANAGERS,
  // Taking up roles is the person's own act: an API key cannot accept for them.
  'user.staff-invitations.accept': {
    credential: 'session',
    who: 'the invited person, signed in with their own access token to the account of the invited address',
  },
  'staff-invitations.register': {
    credential: 'none',
    who: 'the holder of a pending staff invitation’s token (mailed to the invited address)',
  },
  'staff-invitation.page': { credential: 'none', who: 'anyone (the page of the mailed staff invitation link)' },
} as const satisfies Record<string, PolicyRule>;
