/**
 * The web origins of the organisations' app redirect URIs (`https://app.example/cb` →
 * `https://app.example`): a browser app that may receive a sign-in may also call the API from its
 * origin, as Keycloak's "web origins" of a client (docs/api.md "CORS and security headers").
 *
 * All of them are cached per process and reloaded, by one query at a time, when older than
 * `TTL_MS`, so a change (by the admin API, `assent import` or another replica) takes effect within
 * that time without a restart, and any number of requests with unknown origins costs at most one
 * query per period. Threat: an origin removed by the admin still trusted; hence the short period.
 */
import type { FastifyBaseLogger } from 'fastify';
import type { Db } from '../../platform/db/open.js';
import { safeErrorMessage } from '../../platform/util/errors.js';
import { webRedirectUris } from './store.js';

/** How long a loaded set of origins is used before it is reloaded (milliseconds). */
export const TTL_MS = 5_000;
/** After a failed reload, how long the previous set is used before the next attempt (milliseconds). */
const RETRY_MS = 1_000;

/** The serialised origin of an http(s) URI (RFC 6454 §6.1), or null for any other URI. */
function originOf(uri: string): string | null {
  try {
    const url = new URL(uri);
    return url.protocol === 'https:' || url.protocol === 'http:' ? url.origin : null;
  } catch {
    return null;
  }
}

/** The cached set of web origins (see the module comment). */
export class WebOrigins {
  private origins: ReadonlySet<string> = new Set();
  private freshUntil = 0;
  private loading: Promise<void> | undefined;

  /** @param db - the database holding `app_redirect_uris`. */
  constructor(private readonly db: Db) {}

  /**
   * Whether `origin` is the origin of a registered app redirect URI.
   * @param origin - the request's `Origin` header, as the browser serialised it.
   * @param log - where a failed reload is reported.
   * @returns false also while the database cannot be read and nothing was loaded yet; never throws.
   */
  async has(origin: string, log: FastifyBaseLogger): Promise<boolean> {
    if (Date.now() >= this.freshUntil) await this.reload(log);
    return this.origins.has(origin);
  }

  /** Reloads the set, once for concurrent callers; on failure keeps the previous one for `RETRY_MS`. */
  private reload(log: FastifyBaseLogger): Promise<void> {
    this.loading ??= (async () => {
      try {
        const uris = await webRedirectUris(this.db);
        this.origins = new Set(uris.map(originOf).filter((o): o is string => o !== null));
        this.freshUntil = Date.now() + TTL_MS;
      } catch (err) {
        log.warn({ err: safeErrorMessage(err) }, 'loading the CORS web origins failed; the previous ones are used');
        this.freshUntil = Date.now() + RETRY_MS;
      } finally {
        this.loading = undefined;
      }
    })();
    return this.loading;
  }
}
