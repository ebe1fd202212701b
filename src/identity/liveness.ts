/**
 * Whether a session (token family) or an API key is still live, with a short in-process cache of
 * positive answers that every revocation empties at once (issue #2 "Logout": "one indexed lookup, or
 * a short in-process cache with invalidation").
 *
 * Invalidation, per user:
 * - in this process, the service that revoked calls `forgetUser` after its commit, before it answers,
 *   so a logout takes effect for the very next request;
 * - from any process (another server, the CLI), the database triggers of migration 0005 NOTIFY
 *   `assent_revocations` with the user's ID, and `attach` listens on that channel.
 *
 * Threat: serving a revoked session from the cache. Answers are cached only while the listener is
 * connected (a lost connection empties the cache and disables it until it is back), never for longer
 * than `TTL_MS`, and never when a revocation arrived while the lookup was in flight.
 */
import type { Executor, Store } from '../db/open.js';
import * as sessions from './store.js';

/** The NOTIFY channel of migration 0005's revocation triggers; the payload is the user's ID. */
export const REVOCATION_CHANNEL = 'assent_revocations';
/** The longest a "live" answer is trusted (milliseconds). */
const TTL_MS = 60_000;
/** Cached answers at most (count); the oldest go first. */
const MAX_ENTRIES = 50_000;
/** Wait before listening again after the listener was lost (milliseconds). */
const RETRY_MS = 1_000;

interface Entry {
  userId: string;
  until: number;
}

/** The liveness check of the auth guard, cached. */
export class LivenessCache {
  private entries = new Map<string, Entry>();
  private byUser = new Map<string, Set<string>>();
  /** Counts revocations seen; a lookup whose count changed in flight is not cached. */
  private generation = 0;
  private listening = false;
  private stopped = false;
  private unlisten: (() => Promise<void>) | undefined;
  private retry: NodeJS.Timeout | undefined;

  /** @param db - the database the lookups go to. */
  constructor(private readonly db: Executor) {}

  /**
   * Listens for revocations on `store`; until this resolves (and while the listener is lost) every
   * check goes to the database.
   * @throws nothing: a failed LISTEN is retried every second.
   */
  async attach(store: Store): Promise<void> {
    if (this.stopped) return;
    try {
      this.unlisten = await store.listen(REVOCATION_CHANNEL, (userId) => this.forgetUser(userId), () => this.lost(store));
      this.listening = true;
    } catch {
      this.lost(store);
    }
  }

  /** Stops listening and empties the cache. */
  async detach(): Promise<void> {
    this.stopped = true;
    this.listening = false;
    clearTimeout(this.retry);
    this.clear();
    await this.unlisten?.().catch(() => {}); // the store may be closed already: nothing is left to stop
  }

  /**
   * Whether the token family `familyId` of `userId` is live (exists and not revoked).
   * @param familyId - the access token's `sid`.
   * @param userId - its `sub`.
   */
  isFamilyLive(familyId: string, userId: string): Promise<boolean> {
    return this.check(`f:${familyId}`, userId, () => sessions.isFamilyLive(this.db, familyId));
  }

  /**
   * Whether the API key `apiKeyId` of `userId` is live (exists and not revoked).
   * @param apiKeyId - the API key's `jti`.
   * @param userId - its `sub`.
   */
  isApiKeyLive(apiKeyId: string, userId: string): Promise<boolean> {
    return this.check(`k:${apiKeyId}`, userId, () => sessions.isApiKeyLive(this.db, apiKeyId));
  }

  /**
   * Drops every cached answer about `userId`'s credentials; call it after a revocation commits.
   * @param userId - the user whose sessions or API keys were revoked or deleted.
   */
  forgetUser(userId: string): void {
    this.generation++;
    const keys = this.byUser.get(userId);
    if (!keys) return;
    for (const key of keys) this.entries.delete(key);
    this.byUser.delete(userId);
  }

  private async check(key: string, userId: string, lookup: () => Promise<boolean>): Promise<boolean> {
    const entry = this.entries.get(key);
    if (entry && entry.until > Date.now() && this.listening) return true;
    const generation = this.generation;
    const live = await lookup();
    if (live && this.listening && generation === this.generation) this.remember(key, userId);
    return live;
  }

  private remember(key: string, userId: string): void {
    if (this.entries.size >= MAX_ENTRIES) this.evictOldest();
    this.entries.delete(key); // re-inserted last, so that the oldest stays first
    this.entries.set(key, { userId, until: Date.now() + TTL_MS });
    let keys = this.byUser.get(userId);
    if (!keys) this.byUser.set(userId, (keys = new Set()));
    keys.add(key);
  }

  private evictOldest(): void {
    const [key, entry] = this.entries.entries().next().value as [string, Entry];
    this.entries.delete(key);
    const keys = this.byUser.get(entry.userId);
    keys?.delete(key);
    if (keys?.size === 0) this.byUser.delete(entry.userId);
  }

  private clear(): void {
    this.generation++;
    this.entries.clear();
    this.byUser.clear();
  }

  private lost(store: Store): void {
    this.listening = false;
    this.clear();
    if (this.stopped) return;
    this.retry = setTimeout(() => void this.attach(store), RETRY_MS);
    this.retry.unref();
  }
}
