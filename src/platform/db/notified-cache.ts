/**
 * A per-process cache of database answers about users that every process empties, for one user, as
 * soon as the database announces a change to that user on a NOTIFY channel (database triggers send
 * the user's ID as payload, whatever process or tool made the change).
 *
 * Threat: serving an answer the database no longer gives (a revoked session, a removed role). So:
 * - answers are kept only while the listener is connected; a lost connection empties the cache and
 *   disables it until the listener is back;
 * - an answer is never kept longer than its time to live;
 * - an answer whose lookup was in flight while any notification arrived is not kept;
 * - the process that made a change calls `forgetUser` after its commit, so that it does not depend
 *   on its own notification's delivery for its next request.
 */
import type { Store } from './open.js';

/** Wait before listening again after the listener was lost (milliseconds). */
const RETRY_MS = 1_000;

interface Entry<V> {
  userId: string;
  value: V;
  until: number;
}

/** The cache; see the module comment. */
export class NotifiedCache<V> {
  private entries = new Map<string, Entry<V>>();
  private byUser = new Map<string, Set<string>>();
  /** Counts notifications seen; a lookup whose count changed in flight is not kept. */
  private generation = 0;
  private listening = false;
  private stopped = false;
  private unlisten: (() => Promise<void>) | undefined;
  private retry: NodeJS.Timeout | undefined;

  /**
   * @param channel - the NOTIFY channel whose payload is the ID of the user whose answers change.
   * @param ttlMs - the longest an answer is trusted (milliseconds).
   * @param maxEntries - answers kept at most (count); the oldest go first.
   */
  constructor(
    private readonly channel: string,
    private readonly ttlMs: number,
    private readonly maxEntries: number,
  ) {}

  /**
   * Listens on the channel of `store`; until this resolves (and while the listener is lost) every
   * `get` goes to its lookup.
   * @throws nothing: a failed LISTEN is retried every second.
   */
  async attach(store: Store): Promise<void> {
    if (this.stopped) return;
    try {
      this.unlisten = await store.listen(
        this.channel,
        (userId) => this.forgetUser(userId),
        () => this.lost(store),
      );
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
   * Drops every answer kept about `userId`; call it after a change to them commits.
   * @param userId - the user the change was about.
   */
  forgetUser(userId: string): void {
    this.generation++;
    const keys = this.byUser.get(userId);
    if (!keys) return;
    for (const key of keys) this.entries.delete(key);
    this.byUser.delete(userId);
  }

  /**
   * The kept answer for `key`, or the lookup's (kept when `keep` says so and nothing was notified
   * while it ran).
   * @param key - unique across users (include the user's ID or a credential's ID).
   * @param userId - the user the answer is about: a notification for them drops it.
   * @throws whatever `lookup` throws (nothing is kept).
   */
  get(key: string, userId: string, lookup: () => Promise<V>, keep: (value: V) => boolean): Promise<V> {
    return this.find(key, lookup, (value) => (keep(value) ? userId : null));
  }

  /**
   * As `get`, for a key whose user is known only from the answer (a web session found by its
   * cookie's hash): the answer is kept, under the user `userOf` names, unless `userOf` says null.
   * @param key - unique across users.
   * @throws whatever `lookup` throws (nothing is kept).
   */
  async find(key: string, lookup: () => Promise<V>, userOf: (value: V) => string | null): Promise<V> {
    const entry = this.entries.get(key);
    if (entry && entry.until > Date.now() && this.listening) return entry.value;
    const generation = this.generation;
    const value = await lookup();
    const userId = userOf(value);
    if (userId !== null && this.listening && generation === this.generation) this.remember(key, userId, value);
    return value;
  }

  /**
   * Drops the answer kept for `key`, if any (its user's other answers stay).
   * @param key - as given to `get` or `find`.
   */
  forget(key: string): void {
    const entry = this.entries.get(key);
    if (!entry) return;
    this.entries.delete(key);
    const keys = this.byUser.get(entry.userId);
    keys?.delete(key);
    if (keys?.size === 0) this.byUser.delete(entry.userId);
  }

  private remember(key: string, userId: string, value: V): void {
    if (this.entries.size >= this.maxEntries) this.evictOldest();
    this.entries.delete(key); // re-inserted last, so that the oldest stays first
    this.entries.set(key, { userId, value, until: Date.now() + this.ttlMs });
    let keys = this.byUser.get(userId);
    if (!keys) {
      keys = new Set();
      this.byUser.set(userId, keys);
    }
    keys.add(key);
  }

  private evictOldest(): void {
    const [key] = this.entries.entries().next().value as [string, Entry<V>];
    this.forget(key);
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
