/**
 * Whether a session (token family), an API key or a web session is still live, with a short in-process cache of
 * positive answers that every revocation empties at once (docs/decisions/0001-logout-takes-effect-at-once.md
 * "Logout": "one indexed lookup, or a short in-process cache with invalidation").
 *
 * Invalidation, per user:
 * - in this process, the service that revoked calls `forgetUser` after its commit, before it answers,
 *   so a logout takes effect for the very next request;
 * - from any process (another server, the CLI), the database triggers of migration 0005 NOTIFY
 *   `assent_revocations` with the user's ID, and `attach` listens on that channel; the trigger of
 *   migration 0023 does the same when a web session's row is deleted (sign-out, purge, by any process).
 *
 * Threat: serving a revoked session from the cache; `NotifiedCache` (src/platform/db/notified-cache.ts) says
 * how that is kept from happening: answers are kept only while the listener is connected, never for
 * longer than `TTL_MS`, and never when a revocation arrived while the lookup was in flight.
 */

import { NotifiedCache } from '../../platform/db/notified-cache.js';
import type { Executor, Store } from '../../platform/db/open.js';
import * as sessions from './store.js';
import { findSession, type WebSessionRow } from './web-session-store.js';

/** The NOTIFY channel of migration 0005's revocation triggers; the payload is the user's ID. */
export const REVOCATION_CHANNEL = 'assent_revocations';
/** The longest a "live" answer is trusted (milliseconds). */
const TTL_MS = 60_000;
/** Cached answers at most (count); the oldest go first. */
const MAX_ENTRIES = 50_000;

const live = (value: boolean) => value;
const webSessionUser = (row: WebSessionRow | null) => row?.userId ?? null;

/** The liveness check of the auth guard, cached (only "live" answers are kept). */
export class LivenessCache {
  private cache = new NotifiedCache<boolean>(REVOCATION_CHANNEL, TTL_MS, MAX_ENTRIES);
  private webSessions = new NotifiedCache<WebSessionRow | null>(REVOCATION_CHANNEL, TTL_MS, MAX_ENTRIES);

  /** @param db - the database the lookups go to. */
  constructor(private readonly db: Executor) {}

  /**
   * Listens for revocations on `store`; until this resolves (and while the listener is lost) every
   * check goes to the database.
   * @throws nothing: a failed LISTEN is retried every second.
   */
  async attach(store: Store): Promise<void> {
    await Promise.all([this.cache.attach(store), this.webSessions.attach(store)]);
  }

  /** Stops listening and empties the cache. */
  async detach(): Promise<void> {
    await Promise.all([this.cache.detach(), this.webSessions.detach()]);
  }

  /**
   * Whether the token family `familyId` of `userId` is live (exists and not revoked).
   * @param familyId - the access token's `sid`.
   * @param userId - its `sub`.
   */
  isFamilyLive(familyId: string, userId: string): Promise<boolean> {
    return this.cache.get(`f:${familyId}`, userId, () => sessions.isFamilyLive(this.db, familyId), live);
  }

  /**
   * Whether the API key `apiKeyId` of `userId` is live (exists and not revoked).
   * @param apiKeyId - the API key's `jti`.
   * @param userId - its `sub`.
   */
  isApiKeyLive(apiKeyId: string, userId: string): Promise<boolean> {
    return this.cache.get(`k:${apiKeyId}`, userId, () => sessions.isApiKeyLive(this.db, apiKeyId), live);
  }

  /**
   * The stored web session of a cookie's hash (not yet past its absolute end when read), or null; a
   * found row is kept until its user's next revocation notice or `TTL_MS`. The caller still applies
   * the absolute end (a kept row may pass it), the idle timeout and the token family's liveness
   * (src/identity/sessions/web-sessions.ts `resolve`).
   * @param idHash - SHA-256 of the cookie's value.
   * @param fresh - true to read the database whatever is kept (an answer that looks idle may be
   *   stale: another process may have recorded later activity).
   */
  webSession(idHash: Buffer, fresh = false): Promise<WebSessionRow | null> {
    const key = idHash.toString('base64');
    if (fresh) this.webSessions.forget(key);
    return this.webSessions.find(key, () => findSession(this.db, idHash), webSessionUser);
  }

  /**
   * Drops the kept web session of a cookie's hash; call it after its row changed (activity recorded).
   * @param idHash - SHA-256 of the cookie's value.
   */
  forgetWebSession(idHash: Buffer): void {
    this.webSessions.forget(idHash.toString('base64'));
  }

  /**
   * Drops every cached answer about `userId`'s credentials and web sessions; call it after a
   * revocation or a web session's deletion commits.
   * @param userId - the user whose sessions, API keys or web sessions were revoked or deleted.
   */
  forgetUser(userId: string): void {
    this.cache.forgetUser(userId);
    this.webSessions.forgetUser(userId);
  }
}
