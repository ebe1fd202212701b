/**
 * What the orgs domain offers the others about who belongs to an organisation: subscribing an
 * individual (inside the caller's transaction, so that a sign-up, an invitation or an anonymous
 * user and their subscription commit together) and a user's roles. Other domains use this module,
 * never `organisations/membership/store.ts` (docs/development.md, code layout).
 */
export {
  /**
   * The user's roles in the organisation (RoleIDs), or null when the organisation does not exist.
   */
  rolesInOrganisation,
  /**
   * The SQL of a user's RoleIDs in an organisation as an `int[]`, for statements that read the roles
   * with other things in one round trip (the consent record views).
   */
  rolesSql,
  /**
   * Subscribes a user to an organisation and gives them its consent record; see `store.subscribe`.
   * @param db - the caller's transaction (or the root handle).
   * @returns `{subscribed, consentId}`: whether the user was newly subscribed, and the record's ID.
   */
  subscribe,
} from './store.js';
