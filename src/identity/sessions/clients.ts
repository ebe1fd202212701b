/**
 * The registered OAuth clients (RFC 6749 §2), as a refresh or login checks them. Clients are
 * only ever added (by `assent import`), so a positive answer is cached for a minute; a negative
 * one is not, so that a client imported a moment ago is accepted at once.
 */
import type { Executor } from '../../platform/db/open.js';
import * as store from './store.js';

/** How long a registered client is remembered (milliseconds). */
const TTL_MS = 60_000;

/** Checks client IDs against the store, with a short positive cache. */
export class ClientRegistry {
  private known = new Map<string, number>();
  private first: { clientId: string; until: number } | undefined;

  constructor(private readonly db: Executor) {}

  /**
   * Whether `clientId` is registered.
   * @param clientId - the `client_id` as sent.
   */
  async has(clientId: string): Promise<boolean> {
    const until = this.known.get(clientId);
    if (until !== undefined && until > Date.now()) return true;
    const registered = await store.clientExists(this.db, clientId);
    if (registered) this.known.set(clientId, Date.now() + TTL_MS);
    else this.known.delete(clientId);
    return registered;
  }

  /** The first registered client (see `firstClientId`), or null; cached like `has`. */
  async firstClient(): Promise<string | null> {
    if (this.first && this.first.until > Date.now()) return this.first.clientId;
    const clientId = await store.firstClientId(this.db);
    this.first = clientId ? { clientId, until: Date.now() + TTL_MS } : undefined;
    return clientId;
  }
}
