/**
 * What the users domain offers the others about a user's record: the profile that the User of docs/api.md "Resources"
 * body shows, read whole or embedded in another statement, and the password hash column. Other
 * domains use this module, never `identity/users/store.ts` (docs/development.md, code layout).
 */
export {
  /**
   * The columns of a `UserProfile` besides the row, as correlated subqueries on `"users"."id"`, for
   * a statement over `users` that reads a whole profile in the same round trip (the login lookup).
   */
  /** What a password check or change needs to know about an account: ID, username, e-mail, password hash. */
  type CredentialAccount,
  /**
   * A live (not deleted) account by ID, for a password check or change.
   * @returns the account, or null.
   */
  credentialAccountById,
  /**
   * A live (not deleted) account by normalised username, for a password reset.
   * @returns the account, or null.
   */
  credentialAccountByUsername,
  profileColumns,
  /**
   * Replaces the user's password hash (argon2id, docs/identity.md "Passwords"), inside the caller's
   * transaction or on the root handle.
   */
  setPasswordHash,
  /** Builds a `UserProfile` from a row selected with `profileColumns`. */
  toProfile,
  /**
   * A user with everything the User record of docs/api.md "Resources" shows: row, subscribed organisations, roles, live API key (sealed).
   */
  type UserProfile,
  /** A stored user (the `users` row). */
  type UserRow,
  /**
   * The user's row, subscriptions, roles and live API key in one prepared statement.
   * @returns null when there is no such user.
   */
  userProfile,
} from './store.js';
