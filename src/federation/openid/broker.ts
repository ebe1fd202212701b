/**
 * The broker flow (docs/decisions/0013-federation-broker.md): the app sends the browser to `…/authorize`, Assent sends
 * it to the provider (PKCE S256, state, nonce), the provider sends it back to `…/callback`, Assent exchanges the code,
 * validates the ID token, links the local user by (organisation, issuer, `sub`), and sends the browser to the app's
 * registered URI with a single-use Assent code (≤ 60 s) and the app's `state`. The app redeems the code at
 * `…/exchange` for the login response `{User, Token}`.
 */
import { randomBytes } from 'node:crypto';
import { InvalidRequest, NotFound } from '../../platform/core/errors.js';
import { sha256 } from '../../platform/crypto/digest.js';
import type { MasterKey } from '../../platform/crypto/master-key.js';
import type { Db } from '../../platform/db/open.js';
import { enforce } from '../../platform/ratelimit/limit.js';
import { isId } from '../../platform/util/ids.js';
import {
  authorizationUrl,
  exchangeCode,
  FederationError,
  loadOpenidClient,
  publicMessage,
  rpConfiguration,
  type SignInResult,
} from './client.js';
import type { IdpSettings } from './config.js';
import type { FederationConfigService } from './service.js';
import * as store from './store.js';
import { linkUser } from './users.js';

/** Purpose labels of sealed values. */
const PENDING_PURPOSE = 'idp-pending';
/** Purpose label of the sealed ID token. */
export const ID_TOKEN_PURPOSE = 'idp-id-token';
/** Lifetime of a pending sign-in (seconds): the user's time at the provider's login page. */
const STATE_TTL_SECONDS = 600;
/** Lifetime of an Assent code (seconds); docs/decisions/0013-federation-broker.md asks for at most 60. */
const CODE_TTL_SECONDS = 60;
/** Prefix that tells an Assent code from a provider's code at the exchange. */
export const CODE_PREFIX = 'asc_';
/** Sign-in starts per client IP and minute: each writes a row (ASVS 5.0 V2.4.1 anti-automation). */
export const AUTHORIZE_LIMIT = { max: 120, windowSeconds: 60 };

const random = (): string => randomBytes(32).toString('base64url');

/** Where the callback sends the browser. */
export interface CallbackOutcome {
  /** The app URI with `code` and `state`, or with `error`, `error_description` and `state`. */
  location: string;
}

/** Runs the authorize and callback steps. */
export class Broker {
  constructor(
    private readonly db: Db,
    private readonly master: MasterKey,
    private readonly configs: FederationConfigService,
  ) {}

  /** The organisation's settings, or a 404 (unknown organisation or no provider). */
  async requireSettings(orgId: string) {
    // A malformed ID names nothing (docs/api.md "Identifiers"): 404 without a query.
    const settings = isId(orgId) ? await this.configs.settings(orgId) : null;
    if (!settings) throw new NotFound('No identity provider is configured for this organisation');
    return settings;
  }

  /**
   * Starts a sign-in.
   * @param appRedirectUri - must be registered for the organisation (exact match).
   * @param appState - the app's opaque `state`, returned to it unchanged.
   * @param ip - client address, for the rate limit.
   * @returns the provider's authorization URL to redirect to.
   * @throws {NotFound} no provider. @throws {InvalidRequest} unregistered redirect URI. @throws {RateLimited}
   */
  async authorize(orgId: string, appRedirectUri: string, appState: string | undefined, ip: string): Promise<string> {
    const settings = await this.requireSettings(orgId);
    // Open redirector: a sign-in result may only go to a URI the organisation registered.
    if (!(await store.isRedirectUri(this.db, orgId, appRedirectUri)))
      throw new InvalidRequest('redirect_uri is not registered for this organisation', 'invalid_request');
    return this.begin(orgId, settings, appRedirectUri, appState, ip);
  }

  /**
   * Starts a sign-in for one of Assent's own pages (the privacy dashboard's callback, docs/web.md
   * "Sign-in"): the same flow, returning to `pageUri` without it being one of the organisation's
   * registered app redirect URIs. `pageUri` comes from Assent's code, never from a request.
   * @param state - the page's opaque `state`, returned to it unchanged.
   * @returns the provider's authorization URL to redirect to.
   * @throws {NotFound} no provider. @throws {RateLimited}
   */
  async authorizeAssentPage(orgId: string, pageUri: string, state: string, ip: string): Promise<string> {
    return this.begin(orgId, await this.requireSettings(orgId), pageUri, state, ip);
  }

  private async begin(
    orgId: string,
    settings: IdpSettings,
    appRedirectUri: string,
    appState: string | undefined,
    ip: string,
  ): Promise<string> {
    await enforce(this.db, `fed-authorize:ip:${ip}`, AUTHORIZE_LIMIT);
    const state = random();
    const nonce = random();
    const lib = await loadOpenidClient();
    const verifier = lib.randomPKCECodeVerifier();
    await store.insertState(this.db, {
      stateHash: sha256(state),
      orgId,
      secretsSealed: this.master.seal(JSON.stringify({ nonce, verifier }), PENDING_PURPOSE),
      appRedirectUri,
      appState: appState ?? null,
      expiresAt: new Date(Date.now() + STATE_TTL_SECONDS * 1000),
    });
    const rp = await rpConfiguration(settings, this.configs.policy);
    const url = await authorizationUrl(rp, settings, this.configs.callbackUri(orgId), {
      state,
      nonce,
      codeChallenge: await lib.calculatePKCECodeChallenge(verifier),
    });
    return url.href;
  }

  /**
   * Finishes a sign-in at the callback. Before the pending sign-in is found there is no app URI to
   * go back to, so that is a 400; after it, every failure goes back to the app as `error`,
   * `error_description` and its `state` (RFC 6749 §4.1.2.1).
   * @param query - the callback's query (`code`, `state`, `iss`, or `error`).
   * @param log - the request's logger: where an unreachable provider's network detail goes, since
   *   the browser that is sent back to the app holds no credential (see `publicMessage`).
   * @throws {InvalidRequest} when `state` is missing, unknown, expired or already used.
   */
  async callback(
    orgId: string,
    query: Record<string, string | undefined>,
    log: { warn(obj: object, msg: string): void },
  ): Promise<CallbackOutcome> {
    if (!query.state || !isId(orgId)) throw new InvalidRequest('Unknown or expired sign-in (state)', 'invalid_request');
    // CSRF and replay of a callback: the state must be one we issued, and it is used once.
    const pending = await store.takeState(this.db, sha256(query.state), orgId);
    if (!pending) throw new InvalidRequest('Unknown or expired sign-in (state)', 'invalid_request');
    const back = (params: Record<string, string>) => {
      const url = new URL(pending.appRedirectUri);
      for (const [k, v] of Object.entries(params)) url.searchParams.set(k, v);
      if (pending.appState !== null) url.searchParams.set('state', pending.appState);
      return { location: url.href };
    };
    if (query.error) {
      const code = /^[a-z_]{1,40}$/.test(query.error) ? query.error : 'access_denied';
      return back({ error: code, error_description: `The identity provider answered ${code}` });
    }
    const settings = await this.configs.settings(orgId);
    if (!settings)
      return back({ error: 'server_error', error_description: 'The identity provider is no longer configured' });
    const { nonce, verifier } = JSON.parse(this.master.open(pending.secretsSealed, PENDING_PURPOSE)) as {
      nonce: string;
      verifier: string;
    };
    const callbackUrl = new URL(this.configs.callbackUri(orgId));
    for (const [k, v] of Object.entries(query)) if (v !== undefined) callbackUrl.searchParams.set(k, v);
    let result: SignInResult;
    try {
      result = await exchangeCode(await rpConfiguration(settings, this.configs.policy), settings, callbackUrl, {
        verifier,
        state: query.state,
        nonce,
      });
    } catch (err) {
      if (!(err instanceof FederationError)) throw err;
      return back({
        error: err.kind === 'unreachable' ? 'temporarily_unavailable' : 'access_denied',
        error_description: publicMessage(err, log, 'callback'),
      });
    }
    const userId = await linkUser(this.db, orgId, result);
    const code = CODE_PREFIX + random();
    await store.insertCode(this.db, {
      codeHash: sha256(code),
      orgId,
      userId,
      appRedirectUri: pending.appRedirectUri,
      // Kept only sealed, and only until the session ends (id_token_hint of the RP-initiated logout).
      idTokenSealed: this.master.seal(result.idToken, ID_TOKEN_PURPOSE),
      expiresAt: new Date(Date.now() + CODE_TTL_SECONDS * 1000),
    });
    return back({ code });
  }
}
