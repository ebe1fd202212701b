/**
 * Server-side sessions of the web front ends (docs/web.md "Sessions"; OWASP ASVS 5.0 V7), kept by
 * identity beside the token families they ride on. The
 * browser holds one opaque random cookie (HttpOnly, SameSite=Lax, Secure under https); the row
 * holds the user, the identity session (token family) it rides on, and the CSRF token. No token
 * ever reaches the page.
 *
 * A session ends at sign-out (the row and its token family go at once), after
 * `WEB_SESSION_SECONDS` (absolute), after `WEB_IDLE_SECONDS` without a request (idle), and as
 * soon as its token family is revoked elsewhere (a logout of that family, a password change,
 * account deletion): every request checks the family's liveness as the API's auth guard does.
 */
import { randomBytes, randomUUID, timingSafeEqual } from 'node:crypto';
import { sha256 } from '../../platform/crypto/digest.js';
import type { Db } from '../../platform/db/open.js';
import { hashJti } from '../tokens/tokens.js';
import { type Device, deviceColumns, UNKNOWN_DEVICE } from './device.js';
import type { LivenessCache } from './liveness.js';
import type { IdentityService } from './service.js';
import * as families from './store.js';
import type { WebSessionRow } from './web-session-store.js';
import * as store from './web-session-store.js';

/** Absolute lifetime of a web session (seconds): a working day (ASVS 5.0 V7.3.2). */
export const WEB_SESSION_SECONDS = 8 * 3600;
/** Idle timeout (seconds): 30 minutes without a request ends the session (ASVS 5.0 V7.3.1). */
export const WEB_IDLE_SECONDS = 30 * 60;
/** Activity is written at most this often (seconds), so that a page view is not a write. */
const TOUCH_EVERY_SECONDS = 60;

/** A live web session, as the routes see it. */
export interface WebSession {
  userId: string;
  /** The identity session (token family): the `sid` its service calls act under. */
  familyId: string;
  /** The synchronizer token every state-changing request must carry. */
  csrfToken: string;
}

/** 32 random bytes, base64url: a cookie value or a CSRF token (256 bits, ASVS 5.0 V7.2.3). */
const token = () => randomBytes(32).toString('base64url');

/** The web sessions: open, resolve, end. */
export class WebSessions {
  /**
   * @param db - the store.
   * @param identity - names the client that owns a web session's token family, and revokes it at sign-out.
   * @param liveness - the cache of live sessions the sessions' rows and families are read through.
   * @param familyTtlSeconds - the token family's lifetime (`ASSENT_REFRESH_TOKEN_TTL_SECONDS`).
   */
  constructor(
    private readonly db: Db,
    private readonly identity: Pick<IdentityService, 'resolveClient' | 'revokeSession'>,
    private readonly liveness: LivenessCache,
    private readonly familyTtlSeconds: number,
  ) {}

  /**
   * Opens a session for a user whose credentials the caller has just checked.
   * @returns the cookie's value (shown to the browser once, stored only as its SHA-256) and the session.
   * @throws {InvalidRequest} `invalid_client` when no client is registered to own its token family.
   */
  async open(userId: string, device: Device = UNKNOWN_DEVICE): Promise<{ cookie: string; session: WebSession }> {
    const familyId = await this.openFamily(userId, device);
    const cookie = token();
    const csrfToken = token();
    await store.insertSession(this.db, {
      idHash: sha256(cookie),
      userId,
      familyId,
      csrfToken,
      expiresAt: new Date(Date.now() + WEB_SESSION_SECONDS * 1000),
    });
    return { cookie, session: { userId, familyId, csrfToken } };
  }

  /**
   * The live session of a cookie, or null (unknown, expired, idle too long, or its family revoked).
   * The row comes through the liveness cache (`LivenessCache.webSession`), which every sign-out,
   * revocation and deletion empties for the user at once, in every process
   * (docs/decisions/0001-logout-takes-effect-at-once.md); so a page view costs no statement, and
   * activity is written at most every `TOUCH_EVERY_SECONDS`.
   * @param cookie - the cookie's value as sent; anything malformed is simply no session.
   */
  async resolve(cookie: string | undefined): Promise<WebSession | null> {
    if (cookie?.length !== 43) return null;
    const idHash = sha256(cookie);
    let row = await this.liveness.webSession(idHash);
    // Another process may have recorded later activity than the kept row shows: ask the database.
    if (row && idleMs(row) > WEB_IDLE_SECONDS * 1000) row = await this.liveness.webSession(idHash, true);
    // Threat: a kept row used past the session's absolute end (ASVS 5.0 V7.3.2).
    if (!row || row.expiresAt.getTime() <= Date.now()) return null;
    // Threat: an unattended signed-in browser; idle sessions end (ASVS 5.0 V7.3.1).
    if (idleMs(row) > WEB_IDLE_SECONDS * 1000) return this.drop(idHash, row.userId, row.familyId);
    // Cached as the auth guard's check is (docs/decisions/0001-logout-takes-effect-at-once.md).
    if (!(await this.liveness.isFamilyLive(row.familyId, row.userId))) return this.drop(idHash, row.userId, null);
    if (idleMs(row) > TOUCH_EVERY_SECONDS * 1000) {
      await store.touchSession(this.db, idHash);
      this.liveness.forgetWebSession(idHash);
    }
    return { userId: row.userId, familyId: row.familyId, csrfToken: row.csrfToken };
  }

  /**
   * Opens the identity session (token family) a web session rides on: the family that logout, a
   * password change and account deletion revoke, without minting any token, since a browser holds
   * only its cookie.
   * @returns the family ID (`sid`); it lasts `familyTtlSeconds` at most.
   */
  private async openFamily(userId: string, device: Device): Promise<string> {
    const familyId = randomUUID();
    await families.openSession(this.db, {
      familyId,
      userId,
      clientId: await this.identity.resolveClient(undefined),
      // A refresh token that is never handed out: the family needs one row to expire with.
      jtiHash: hashJti(randomUUID()),
      // No longer than the browser session it carries, so that the person's list of sessions ends it with it.
      expiresAt: new Date(Date.now() + Math.min(this.familyTtlSeconds, WEB_SESSION_SECONDS) * 1000),
      ...deviceColumns(device),
    });
    return familyId;
  }

  /**
   * Deletes a session that has ended; the process's kept answers about its user go with it.
   * @param familyId - its token family, revoked with it (an idle session's), or null when already revoked.
   */
  private async drop(idHash: Buffer, userId: string, familyId: string | null): Promise<null> {
    await store.deleteSession(this.db, idHash);
    if (familyId) await this.identity.revokeSession(userId, familyId, 'web session idle');
    this.liveness.forgetUser(userId);
    return null;
  }

  /**
   * Ends a session at once: its row, and its token family (revoked, so that every process refuses it).
   * @param cookie - the cookie's value; unknown is a no-op.
   */
  async end(cookie: string | undefined): Promise<void> {
    if (!cookie) return;
    const gone = await store.deleteSession(this.db, sha256(cookie));
    if (!gone) return;
    this.liveness.forgetUser(gone.userId);
    await this.identity.revokeSession(gone.userId, gone.familyId, 'web sign-out');
  }
}

/** Milliseconds since the session's last recorded activity. */
const idleMs = (row: WebSessionRow) => Date.now() - row.lastSeenAt.getTime();

/**
 * Whether a submitted CSRF token is the session's, in constant time (OWASP CSRF cheat sheet,
 * synchronizer token pattern).
 */
export function csrfMatches(session: WebSession, sent: unknown): boolean {
  if (typeof sent !== 'string' || sent.length !== session.csrfToken.length) return false;
  return timingSafeEqual(Buffer.from(sent), Buffer.from(session.csrfToken));
}
