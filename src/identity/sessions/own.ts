/**
 * A person's own sessions (docs/security.md "Sessions"; ASVS 5.0 V7.5.2): each with when it was opened and last
 * used, its client, the `User-Agent` and network it was opened from, and whether it is the one asking; ending one, or
 * every other one, takes effect at once in every process (docs/decisions/0001-logout-takes-effect-at-once.md).
 */
import { NotFound } from '../../platform/core/errors.js';
import type { Principal } from '../../platform/core/principal.js';
import type { Db } from '../../platform/db/open.js';
import { isId } from '../../platform/util/ids.js';
import type { LivenessCache } from './liveness.js';
import { type OwnSessionRow, ownSessions, revokeOwnSession } from './own-store.js';
import { revokeUserSessions } from './revocation.js';

/** A session as the API shows it; times are RFC 3339. */
export interface OwnSessionBody {
  ID: string;
  CreatedAt: string;
  /** The last refresh of its tokens, or its browser's last request (a minute's precision); null when none since. */
  LastUsedAt: string | null;
  ClientID: string;
  /** `web` for a browser session of the dashboard or the console, else `api`. */
  Kind: 'web' | 'api';
  UserAgent: string;
  /** The network it was opened from (`192.0.2.0/24`, `2001:db8:1::/48`; '' when unknown). */
  IPPrefix: string;
  /** Whether it is the session of this request. */
  Current: boolean;
}

function present(row: OwnSessionRow, current: string | undefined): OwnSessionBody {
  return {
    ID: row.id,
    CreatedAt: row.createdAt.toISOString(),
    LastUsedAt: row.lastUsedAt?.toISOString() ?? null,
    ClientID: row.clientId,
    Kind: row.web ? 'web' : 'api',
    UserAgent: row.userAgent,
    IPPrefix: row.ipPrefix,
    Current: row.id === current,
  };
}

/** Lists and ends a person's own sessions. */
export class OwnSessions {
  /**
   * @param db - the store.
   * @param liveness - told of every session ended.
   * @param refreshTtlSeconds - the refresh tokens' lifetime (`ASSENT_REFRESH_TOKEN_TTL_SECONDS`).
   */
  constructor(
    private readonly db: Db,
    private readonly liveness: LivenessCache,
    private readonly refreshTtlSeconds: number,
  ) {}

  /** The caller's live sessions, last used first (at most 200). */
  async list(principal: Principal): Promise<OwnSessionBody[]> {
    const rows = await ownSessions(this.db, principal.userId, this.refreshTtlSeconds);
    return rows.map((r) => present(r, principal.familyId));
  }

  /**
   * Ends one of the caller's sessions (their current one included: that is a logout).
   * @throws {NotFound} for a session that is not the caller's or has already ended.
   */
  async end(principal: Principal, sessionId: string): Promise<void> {
    const id = isId(sessionId) ? sessionId.toLowerCase() : null;
    // Threat: ending someone else's session by its ID; a session of another person is unknown here.
    if (!id || !(await revokeOwnSession(this.db, principal.userId, id))) throw new NotFound('Session not found');
    this.liveness.forgetUser(principal.userId);
  }

  /**
   * Ends every session of the caller but the one asking.
   * @returns how many ended (count).
   */
  async endOthers(principal: Principal): Promise<number> {
    const ended = await revokeUserSessions(
      this.db,
      principal.userId,
      principal.familyId ?? null,
      'ended by its person',
    );
    this.liveness.forgetUser(principal.userId);
    return ended;
  }
}
