/**
 * What orgs contributes to the data export (GDPR Art. 15 and 20; docs/identity.md "Data export (GDPR Art. 15 and
 * 20)"): the individual's subscriptions and their own admin roles, each with the organisation's name.
 */
import { type Static, Type } from 'typebox';
import { ROLES } from '../../identity/index.js';
import type { Executor } from '../../platform/db/open.js';
import { rolesOf, subscriptionsOf } from './store.js';

/** A subscription in the export. */
export const ExportedSubscription = Type.Object({
  OrgID: Type.String(),
  Name: Type.String({ description: 'the organisation’s name' }),
  Since: Type.String({ description: 'RFC 3339: when the individual subscribed' }),
  EulaAccepted: Type.Boolean(),
});

/** An admin role in the export. */
export const ExportedRole = Type.Object({
  OrgID: Type.String(),
  Name: Type.String({ description: 'the organisation’s name' }),
  RoleID: Type.Integer({ description: '1 Admin, 2 Dpo, 3 Developer, 4 Owner' }),
  Role: Type.String(),
});

/**
 * The user's subscriptions (oldest first) and admin roles (by organisation and RoleID).
 * @param db - the database or the caller's transaction.
 */
export async function exportMemberships(
  db: Executor,
  userId: string,
): Promise<{ subscriptions: Static<typeof ExportedSubscription>[]; roles: Static<typeof ExportedRole>[] }> {
  const [subscriptions, roles] = await Promise.all([subscriptionsOf(db, userId), rolesOf(db, userId)]);
  return {
    subscriptions: subscriptions.map((s) => ({
      OrgID: s.orgId,
      Name: s.name,
      Since: s.since.toISOString(),
      EulaAccepted: s.eulaAccepted,
    })),
    roles: roles.map((r) => ({
      OrgID: r.orgId,
      Name: r.name,
      RoleID: r.roleId,
      Role: ROLES.find((x) => x.ID === r.roleId)?.Role ?? '',
    })),
  };
}
