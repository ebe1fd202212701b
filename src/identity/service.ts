/**
 * The rules of signing in (SPEC 4.2 logins, token refresh, logout; SPEC 5).
 */
import { randomUUID } from 'node:crypto';
import type { Config } from '../config.js';
import type { MasterKey } from '../crypto/master-key.js';
import type { Db } from '../db/open.js';
import { BadRequest, Forbidden, Unauthorized } from '../http/errors.js';
import type { TokenBody, UserBody } from '../http/schemas.js';
import type { Principal } from '../http/auth.js';
import * as users from '../users/store.js';
import { presentUser } from '../users/present.js';
import { hashPassword, needsRehash, verifyPassword } from './passwords.js';
import * as sessions from './store.js';
import * as throttle from './throttle.js';
import { hashJti, InvalidTokenError, TokenType, type Tokens } from './tokens.js';

const API_KEY_PURPOSE = 'api-key';
/** The one message of every credential failure, so that none tells which part was wrong. */
const BAD_CREDENTIALS = 'Invalid user credentials';

/** What a successful login yields. */
export interface LoginResult {
  User: UserBody;
  Token: TokenBody;
}

/** The dependencies of the identity service. */
export interface IdentityDeps {
  db: Db;
  config: Config;
  tokens: Tokens;
  master: MasterKey;
}

/** Normalises a username for lookup: usernames are case-insensitive, like Keycloak's. */
export function normaliseUsername(username: string): string {
  return username.trim().normalize('NFKC').toLowerCase();
}

/** Signs users in and manages their sessions. */
export class IdentityService {
  private dummyHash: Promise<string>;

  constructor(private readonly deps: IdentityDeps) {
    // Verified against when the username is unknown, so that both failures cost one argon2id
    // verification and cannot be told apart by timing (ASVS 5.0 V6.3.8).
    this.dummyHash = hashPassword(randomUUID(), deps.config.argon2);
  }

  /**
   * Checks a username and password: throttle, lookup, verification, re-hash when weaker than
   * configured, `LastVisit`. Every failure is the same 401.
   *
   * @param username - as sent.
   * @param password - as sent.
   * @param ip - client address, for the per-IP throttle.
   * @returns the user's ID.
   * @throws {TooManyRequests} when the account or IP is blocked (ASVS 5.0 V6.3.1).
   * @throws {Unauthorized} `invalid_grant` on a wrong username or password (RFC 6749 §5.2).
   */
  async checkPassword(username: string, password: string, ip: string): Promise<string> {
    const { db, config } = this.deps;
    const normalised = normaliseUsername(username);
    const keys = throttle.attemptKeys(normalised, ip);
    await throttle.assertNotBlocked(db, keys);
    const user = await users.findByUsername(db, normalised);
    const hash = user?.passwordHash ?? (await this.dummyHash);
    const ok = (await verifyPassword(hash, password)) && user?.passwordHash != null;
    if (!ok || !user) {
      await throttle.recordFailure(db, keys, config.throttleAccount, config.throttleIp);
      throw new Unauthorized(BAD_CREDENTIALS, 'invalid_grant');
    }
    await throttle.recordSuccess(db, keys);
    if (needsRehash(hash, config.argon2)) await users.setPasswordHash(db, user.id, await hashPassword(password, config.argon2));
    return user.id;
  }

  /**
   * Resolves the client a new session belongs to: the one named, else `ASSENT_DEFAULT_CLIENT_ID`,
   * else the first registered client.
   * @throws {BadRequest} `invalid_client` when it is not registered.
   */
  async resolveClient(clientId: string | undefined): Promise<string> {
    const { db, config } = this.deps;
    const id = clientId ?? config.defaultClientId ?? (await sessions.firstClientId(db));
    if (!id || !(await sessions.clientExists(db, id))) throw new BadRequest('Unknown client', 'invalid_client');
    return id;
  }

  /**
   * Opens a session (token family) and mints its access and refresh tokens.
   * @param userId - the signed-in user.
   * @param clientId - a registered client.
   */
  async openSession(userId: string, clientId: string): Promise<TokenBody> {
    const { db, config, tokens } = this.deps;
    const sid = randomUUID();
    const refresh = await tokens.sign(TokenType.refresh, { sub: userId, client_id: clientId, sid }, config.refreshTokenTtl);
    await sessions.createFamily(db, { id: sid, userId, clientId }, hashJti(refresh.jti), new Date(refresh.exp * 1000));
    return this.tokenBody(userId, clientId, sid, refresh.token);
  }

  private async tokenBody(userId: string, clientId: string, sid: string, refreshToken: string): Promise<TokenBody> {
    const { config, tokens } = this.deps;
    const access = await tokens.sign(TokenType.access, { sub: userId, client_id: clientId, sid }, config.accessTokenTtl);
    return {
      access_token: access.token,
      expires_in: config.accessTokenTtl,
      refresh_token: refreshToken,
      refresh_expires_in: config.refreshTokenTtl,
      token_type: 'bearer',
    };
  }

  /**
   * The user's live API key, minted (360 days by default) when there is none.
   * @param userId - the user.
   * @returns the compact JWT.
   */
  async apiKeyFor(userId: string): Promise<string> {
    const { db, config, tokens, master } = this.deps;
    const live = await sessions.findLiveApiKey(db, userId);
    if (live) return master.open(live.tokenSealed, API_KEY_PURPOSE);
    const key = await tokens.sign(TokenType.apiKey, { sub: userId }, config.apiKeyTtl);
    await sessions.insertApiKey(db, { id: key.jti, userId, tokenSealed: master.seal(key.token, API_KEY_PURPOSE), expiresAt: new Date(key.exp * 1000) });
    return key.token;
  }

  /**
   * Revokes the user's API keys at once; the next login or `GET /user` hands out a new one.
   * @param userId - the signed-in user.
   */
  async revokeApiKeys(userId: string): Promise<void> {
    await sessions.revokeApiKeys(this.deps.db, userId);
  }

  /**
   * The User record of SPEC 2, with `APIKey` when asked.
   * @throws {Unauthorized} when the user no longer exists.
   */
  async userRecord(userId: string, withApiKey: boolean): Promise<UserBody> {
    const { db, config } = this.deps;
    const row = await users.findById(db, userId);
    if (!row) throw new Unauthorized();
    const [orgs, roles, apiKey] = await Promise.all([
      users.subscribedOrgs(db, userId),
      users.rolesOf(db, userId),
      withApiKey ? this.apiKeyFor(userId) : Promise.resolve(undefined),
    ]);
    return presentUser(row, orgs, roles, config.publicUrl, apiKey);
  }

  /**
   * Logs in (SPEC 4.2 "Login as user" v1.1 and "Login as organisation admin").
   * @param admin - true for the admin login: a user without any admin role gets a 403.
   * @throws {Unauthorized} | {TooManyRequests} | {BadRequest} | {Forbidden}
   */
  async login(input: { username: string; password: string; clientid?: string }, ip: string, admin: boolean): Promise<LoginResult> {
    const userId = await this.checkPassword(input.username, input.password, ip);
    if (admin && (await users.rolesOf(this.deps.db, userId)).length === 0) throw new Forbidden('The user is not an organisation admin');
    const clientId = await this.resolveClient(input.clientid);
    const token = await this.openSession(userId, clientId);
    await users.touchLastVisit(this.deps.db, userId);
    return { User: await this.userRecord(userId, true), Token: token };
  }

  /**
   * Rotates a refresh token (SPEC 4.2 "Refresh access token"; RFC 6749 §6; RFC 9700 §4.14.2).
   * Reuse of a consumed token revokes its whole family.
   * @throws {BadRequest} `invalid_grant` / `invalid_client`.
   */
  async refresh(input: { refreshtoken: string; clientid: string }): Promise<TokenBody> {
    const { db, config, tokens } = this.deps;
    const claims = await this.verifyRefresh(input.refreshtoken);
    await this.assertClient(input.clientid, claims.client_id);
    const next = await tokens.sign(TokenType.refresh, { sub: claims.sub, client_id: claims.client_id, sid: claims.sid }, config.refreshTokenTtl);
    const family = await sessions.rotateRefresh(db, hashJti(claims.jti), hashJti(next.jti), new Date(next.exp * 1000));
    if (!family) {
      const reused = await sessions.consumedFamily(db, hashJti(claims.jti));
      // A consumed token presented again means it was stolen or raced: end the session for everyone holding it.
      if (reused) await sessions.revokeFamily(db, reused, 'refresh token reuse');
      throw new BadRequest('Invalid refresh token', 'invalid_grant');
    }
    return this.tokenBody(claims.sub, input.clientid, family, next.token);
  }

  /**
   * Ends the session of a refresh token (SPEC 4.2 "Logout user"). The token must belong to the caller.
   * @throws {BadRequest} `invalid_grant` / `invalid_client`.
   */
  async logout(principal: Principal, input: { refreshtoken: string; clientid: string }): Promise<void> {
    const claims = await this.verifyRefresh(input.refreshtoken);
    await this.assertClient(input.clientid, claims.client_id);
    // Someone else's refresh token must not let the caller end that person's session.
    if (claims.sub !== principal.userId) throw new BadRequest('Invalid refresh token', 'invalid_grant');
    await sessions.revokeFamily(this.deps.db, claims.sid as string, 'logout');
  }

  private async verifyRefresh(token: string) {
    try {
      const claims = await this.deps.tokens.verify(token, TokenType.refresh);
      if (!claims.sid || !claims.client_id) throw new InvalidTokenError('missing sid');
      return claims as typeof claims & { sid: string; client_id: string };
    } catch (err) {
      if (err instanceof InvalidTokenError) throw new BadRequest('Invalid refresh token', 'invalid_grant');
      throw err;
    }
  }

  private async assertClient(sent: string, bound: string): Promise<void> {
    if (!(await sessions.clientExists(this.deps.db, sent))) throw new BadRequest('Unknown client', 'invalid_client');
    // RFC 6749 §6: a refresh token is bound to the client it was issued to.
    if (sent !== bound) throw new BadRequest('The refresh token was not issued to this client', 'invalid_grant');
  }
}

