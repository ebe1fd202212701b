/**
 * Admin roles of an organisation. IDs are those of the iGrant.io API family (docs/api.md "Roles and
 * logins"): 1 Admin, 2 Dpo, 3 Developer; Assent adds 4 Owner.
 */

import type { RoleId } from '../../platform/core/roles.js';

export { Role, type RoleId } from '../../platform/core/roles.js';

/** Every role, in ID order: the body of `GET {base}/organizations/roles`. */
export const ROLES: ReadonlyArray<{ ID: RoleId; Role: string }> = [
  { ID: 1, Role: 'Admin' },
  { ID: 2, Role: 'Dpo' },
  { ID: 3, Role: 'Developer' },
  { ID: 4, Role: 'Owner' },
];

/** Role IDs by the lower-case names of the import file (`owner`, `admin`, `dpo`, `developer`). */
export const ROLE_BY_NAME: Readonly<Record<string, RoleId>> = { admin: 1, dpo: 2, developer: 3, owner: 4 };
