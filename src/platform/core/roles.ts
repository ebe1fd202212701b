/**
 * The role IDs the access policy checks: those of the iGrant.io API family (docs/api.md
 * "Semantics of the original service"): 1 Admin, 2 Dpo, 3 Developer; Assent adds 4 Owner. The users domain lists them
 * (`identity/users/roles.ts`); they live here so that the access policy needs no domain.
 */

/** Role IDs by name. */
export const Role = { Admin: 1, Dpo: 2, Developer: 3, Owner: 4 } as const;
/** A role ID. */
export type RoleId = (typeof Role)[keyof typeof Role];

/** Roles that may read an organisation's configuration (docs/access-policy.md). */
export const ORG_STAFF = [Role.Owner, Role.Admin, Role.Dpo, Role.Developer] as const;
/** Roles that may change an organisation's configuration (docs/access-policy.md). */
export const ORG_MANAGERS = [Role.Owner, Role.Admin] as const;
