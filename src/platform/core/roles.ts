/**
 * The role IDs the access policy checks: those of the iGrant.io API family (docs/api.md
 * "Semantics of the original service"): 1 Admin, 2 Dpo, 3 Developer; Assent adds 4 Owner. The users domain lists them
 * (`identity/users/roles.ts`); they live here so that the access policy needs no domain.
 */

/** Role IDs by name. */
export const Role = { Admin: 1, Dpo: 2, Developer: 3, Owner: 4 } as const;
/** A role ID. */
export type RoleId = (typeof Role)[keyof typeof Role];
