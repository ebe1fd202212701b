/**
 * The code exchange (docs/api.md "Identity management" "Exchange auth code"; docs/decisions/0013-federation-broker.md): redeems a single-use
 * Assent code (the `redirect_uri` must match the sign-in's; ≤ 60 s), or a code the app obtained straight from the
 * provider with its own registered `redirect_uri` (Assent then runs the same validation). It needs no bearer token
 * and is throttled per client IP like a login (ASVS 5.0 V6.3.1).
 */
import type { FastifyBaseLogger } from 'fastify';
import {
  assertKeyNotBlocked,
  type IdentityService,
  type LoginResult,
  recordKeyFailure,
  type Tokens,
  TokenType,
} from '../../identity/index.js';
import type { Config } from '../../platform/config/load.js';
import { type AssentError, InvalidRequest, NotFound, UpstreamFailure } from '../../platform/core/errors.js';
import { sha256 } from '../../platform/crypto/digest.js';
import type { MasterKey } from '../../platform/crypto/master-key.js';
import type { Db } from '../../platform/db/open.js';
import { isId } from '../../platform/util/ids.js';
import { type Broker, CODE_PREFIX, ID_TOKEN_PURPOSE } from './broker.js';
import { exchangeCode, FederationError, publicMessage, rpConfiguration } from './client.js';
import type { FederationConfigService } from './service.js';
import * as store from './store.js';
import { linkUser } from './users.js';

const INVALID_CODE = 'Invalid, expired or already used code';

/**
 * Turns a provider failure into an answer: validation or refusal is a 400 `invalid_grant` naming
 * the failed check, an unreachable provider a 502 `temporarily_unavailable` with a fixed message
 * (`publicMessage`); never a 500, never the provider's body.
 */
function answer(err: FederationError, log: FastifyBaseLogger): AssentError {
  const message = publicMessage(err, log, 'code exchange');
  return err.kind === 'unreachable'
    ? new UpstreamFailure(message, 'temporarily_unavailable')
    : new InvalidRequest(message, 'invalid_grant');
}

/** Exchanges codes for Assent sessions. */
export class Exchange {
  constructor(
    private readonly db: Db,
    private readonly config: Config,
    private readonly master: MasterKey,
    private readonly identity: IdentityService,
    private readonly tokens: Tokens,
    private readonly configs: FederationConfigService,
    private readonly broker: Broker,
  ) {}

  /**
   * Redeems a code for the login response `{User, Token}` of docs/api.md "Resources".
   * @param orgId - the path's organisation.
   * @param redirectUri - the app URI the code was sent to.
   * @param code - an Assent code (`asc_…`) or a provider's code.
   * @param ip - client address, for the throttle.
   * @param log - the request's logger: where a failure's network detail goes (never to the caller).
   * @throws {RateLimited} while the IP is blocked. @throws {InvalidRequest} `invalid_grant`.
   * @throws {NotFound} no provider (provider codes only). @throws {UpstreamFailure} provider unreachable.
   */
  async redeem(
    orgId: string,
    redirectUri: string,
    code: string,
    ip: string,
    log: FastifyBaseLogger,
  ): Promise<LoginResult> {
    const { db, config } = this;
    const key = `fed-exchange:ip:${ip}`;
    await assertKeyNotBlocked(db, key);
    try {
      return await this.redeemUnthrottled(orgId, redirectUri, code, log);
    } catch (err) {
      // Guessing codes costs like guessing passwords: failures count against the IP.
      if (err instanceof InvalidRequest) await recordKeyFailure(db, key, config.throttleIp);
      throw err;
    }
  }

  /**
   * Redeems a single-use Assent code issued to one of Assent's own pages (the privacy dashboard,
   * docs/web.md "Sign-in") for the linked user's ID only: no token pair is minted, since nobody
   * would hold it; the page opens its own browser session. Throttled per IP like `redeem`.
   * @param redirectUri - the page's URI the code was sent to.
   * @returns the user's ID.
   * @throws {RateLimited} while the IP is blocked. @throws {InvalidRequest} `invalid_grant`.
   */
  async redeemForUser(orgId: string, redirectUri: string, code: string, ip: string): Promise<string> {
    const { db, config } = this;
    const key = `fed-exchange:ip:${ip}`;
    await assertKeyNotBlocked(db, key);
    try {
      if (!isId(orgId) || !code.startsWith(CODE_PREFIX)) throw new InvalidRequest(INVALID_CODE, 'invalid_grant');
      return (await this.takeCode(orgId, redirectUri, code)).userId;
    } catch (err) {
      if (err instanceof InvalidRequest) await recordKeyFailure(db, key, config.throttleIp);
      throw err;
    }
  }

  /**
   * Consumes an Assent code bound to `redirectUri`.
   * @throws {InvalidRequest} `invalid_grant` when unknown, expired, used, or issued to another URI.
   */
  private async takeCode(orgId: string, redirectUri: string, code: string) {
    // Deleted as it is read: a replayed code finds nothing (RFC 6749 §4.1.2, §10.5).
    const row = await store.takeCode(this.db, sha256(code), orgId);
    if (!row) throw new InvalidRequest(INVALID_CODE, 'invalid_grant');
    // RFC 6749 §4.1.3: the redirect_uri must be the one the code was issued to.
    if (row.appRedirectUri !== redirectUri)
      throw new InvalidRequest('redirect_uri does not match the sign-in', 'invalid_grant');
    return row;
  }

  private async redeemUnthrottled(
    orgId: string,
    redirectUri: string,
    code: string,
    log: FastifyBaseLogger,
  ): Promise<LoginResult> {
    const { db, master, configs } = this;
    if (!isId(orgId)) throw new NotFound('No identity provider is configured for this organisation');
    if (code.startsWith(CODE_PREFIX)) {
      const row = await this.takeCode(orgId, redirectUri, code);
      // Threat: a code issued to Assent's own page (the dashboard) turned into a token pair; only registered URIs' codes.
      if (!(await store.isRedirectUri(db, orgId, row.appRedirectUri)))
        throw new InvalidRequest(INVALID_CODE, 'invalid_grant');
      return this.login(orgId, row.userId, row.idTokenSealed);
    }
    const settings = await this.broker.requireSettings(orgId);
    if (!(await store.isRedirectUri(db, orgId, redirectUri)))
      throw new InvalidRequest('redirect_uri is not registered for this organisation', 'invalid_grant');
    const callbackUrl = new URL(redirectUri);
    callbackUrl.search = '';
    callbackUrl.searchParams.set('code', code);
    try {
      const result = await exchangeCode(await rpConfiguration(settings, configs.policy), settings, callbackUrl, {});
      const userId = await linkUser(db, orgId, result);
      return await this.login(orgId, userId, master.seal(result.idToken, ID_TOKEN_PURPOSE));
    } catch (err) {
      if (err instanceof FederationError) throw answer(err, log);
      throw err;
    }
  }

  /** Opens the Assent session and keeps the sealed ID token with it. */
  private async login(orgId: string, userId: string, idTokenSealed: string | null): Promise<LoginResult> {
    const { db, identity, tokens } = this;
    const clientId = await identity.resolveClient(undefined);
    const { token, lastVisit } = await identity.openSession(userId, clientId);
    const { sid } = await tokens.verify(token.access_token, TokenType.access);
    if (idTokenSealed && sid) await store.insertSession(db, { familyId: sid, orgId, userId, idTokenSealed });
    const user = await identity.userRecord(userId, true);
    user.LastVisit = lastVisit.toISOString();
    return { User: user, Token: token };
  }
}
