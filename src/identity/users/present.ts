/** Builds the User body (docs/api.md "Resources") from stored rows. */
import type { UserBody } from './schemas.js';
import type { UserRow } from './store.js';

/** An organisation the user is subscribed to, as `userProfile` returns it. */
export interface SubscribedOrg {
  orgId: string;
  name: string;
  location: string;
  type: string;
  typeId: string;
  eulaAccepted: boolean;
}

/**
 * The User of docs/api.md "Resources". `IamID` is the user's identity-store ID (the `sub` of their tokens);
 * `ImageURL` is absolute (docs/api.md "Image upload") or empty when there is no image;
 * `LastVisit` is RFC 3339 and absent before the first login.
 *
 * @param publicUrl - `ASSENT_PUBLIC_URL`.
 * @param apiKey - the user's API key, included when given.
 */
export function presentUser(
  row: UserRow,
  orgs: SubscribedOrg[],
  roles: Array<{ roleId: number; orgId: string }>,
  publicUrl: string,
  apiKey?: string,
): UserBody {
  const user: UserBody = {
    ID: row.id,
    Name: row.name,
    IamID: row.id,
    Email: row.email,
    Phone: row.phone,
    ImageID: row.imageId,
    ImageURL: row.imageId ? `${publicUrl}/v1/users/${row.id}/image/${row.imageId}` : '',
    Client: { Token: row.clientToken, Type: row.clientType },
    Orgs: orgs.map((o) => ({
      OrgID: o.orgId,
      Name: o.name,
      Location: o.location,
      Type: o.type,
      TypeID: o.typeId,
      EulaAccepted: o.eulaAccepted,
    })),
    Roles: roles.map((r) => ({ RoleID: r.roleId, OrgID: r.orgId })),
  };
  if (row.lastVisitAt) user.LastVisit = row.lastVisitAt.toISOString();
  if (apiKey) user.APIKey = apiKey;
  return user;
}
