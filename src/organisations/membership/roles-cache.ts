/**
 * A user's roles in an organisation, as the access checks ask them on every request (the auth
 * guard's `orgRoles` rows, and the consent-record access check), cached per process so that a
 * request by an organisation's staff does not spend a database round trip on them.
 *
 * Invalidation, per user: the triggers of migration 0011 NOTIFY `assent_roles` with the user's ID on
 * every change of their roles, from any process or tool (`assent import`, an account deletion,
 * cascades included). Threat: a removed role still honoured; `NotifiedCache` keeps answers only
 * while listening, at most `TTL_MS`, and never one whose lookup raced a notification. Only answers
 * for an existing organisation are kept, so a guessed organisation ID never takes a place.
 */

import { NotifiedCache } from '../../platform/db/notified-cache.js';
import type { Db, Store } from '../../platform/db/open.js';
import { rolesInOrganisation } from './store.js';

/** The NOTIFY channel of migration 0011's trigger on user_roles; the payload is the user's ID. */
export const ROLES_CHANNEL = 'assent_roles';
/** The longest a cached answer is trusted (milliseconds). */
const TTL_MS = 60_000;
/** Cached answers at most (count); the oldest go first. */
const MAX_ENTRIES = 50_000;

const exists = (roles: number[] | null) => roles !== null;

/** The cached role lookup of the access checks. */
export class RolesCache {
  private cache = new NotifiedCache<number[] | null>(ROLES_CHANNEL, TTL_MS, MAX_ENTRIES);

  /** @param db - the database the lookups go to. */
  constructor(private readonly db: Db) {}

  /**
   * Listens for role changes on `store`; until this resolves (and while the listener is lost) every
   * lookup goes to the database.
   * @throws nothing: a failed LISTEN is retried every second.
   */
  attach(store: Store): Promise<void> {
    return this.cache.attach(store);
  }

  /** Stops listening and empties the cache. */
  detach(): Promise<void> {
    return this.cache.detach();
  }

  /**
   * Drops what this process keeps of the user's roles; call it after a change of them commits, so that this process's
   * next request does not wait for the change's notification (the other processes get that).
   * @param userId - the user whose roles changed.
   */
  forgetUser(userId: string): void {
    this.cache.forgetUser(userId);
  }

  /**
   * The user's RoleIDs in the organisation (empty when none); see `rolesInOrganisation`.
   * @param orgId - a well-formed organisation ID.
   * @returns null when the organisation does not exist.
   * @throws the database's error.
   */
  rolesIn(orgId: string, userId: string): Promise<number[] | null> {
    return this.cache.get(`${userId}:${orgId}`, userId, () => rolesInOrganisation(this.db, orgId, userId), exists);
  }
}
