/**
 * The SAML broker flow, the same shape as the OpenID one (docs/decisions/0013-federation-broker.md,
 * docs/decisions/0022-saml-federation.md): the app sends the browser to `…/idp/saml/authorize`,
 * Assent sends it to the IdP with an AuthnRequest (HTTP-Redirect binding, signed unless the
 * organisation turned that off), the IdP posts the Response to `…/idp/saml/acs` (HTTP-POST binding),
 * Assent validates it, links the local user by (organisation, IdP entity ID, NameID), and sends the
 * browser to the app's registered URI with a single-use Assent code that `…/idp/open-id/exchange`
 * redeems, as for the OpenID provider.
 */
import { randomBytes } from 'node:crypto';
import { InvalidRequest, NotFound } from '../../platform/core/errors.js';
import { sha256 } from '../../platform/crypto/digest.js';
import type { MasterKey } from '../../platform/crypto/master-key.js';
import type { Db } from '../../platform/db/open.js';
import { enforce } from '../../platform/ratelimit/limit.js';
import { isId } from '../../platform/util/ids.js';
import { AUTHORIZE_LIMIT, CODE_PREFIX } from '../openid/broker.js';
import * as fedStore from '../openid/store.js';
import { linkUser } from '../openid/users.js';
import { SamlCheckError } from './checks.js';
import type { SamlSettings } from './config.js';
import { decodeResponse, type SamlSignIn, validateResponse } from './response.js';
import { ENCRYPTED_REFUSED, inspectResponse } from './response-inspect.js';
import type { SamlConfigService } from './service.js';
import { DbRequestCache, REQUEST_TTL_MS, serviceProvider } from './sp.js';
import type { SpKeys } from './sp-keys.js';

/** Purpose label of a pending sign-in's request ID, sealed. */
const PENDING_PURPOSE = 'idp-saml-pending';
/** Purpose label of the IdP session (NameID, SessionIndex) kept sealed with the Assent session for logout. */
export const SAML_SESSION_PURPOSE = 'idp-saml-session';
/** Lifetime of an Assent code (seconds), as in the OpenID flow. */
const CODE_TTL_SECONDS = 60;
/** Largest SAMLResponse accepted (characters of base64). */
export const MAX_RESPONSE_CHARS = 400_000;

const random = (): string => randomBytes(32).toString('base64url');
/**
 * The key of a pending SAML sign-in: its RelayState hashed apart from the OpenID states, so that a
 * RelayState presented at the OpenID callback (or a state at the ACS) finds nothing.
 */
const stateKey = (relayState: string) => sha256(`saml:${relayState}`);

/** Where a refused Response is reported to the operator (the request's logger). */
export type RefusalLog = { warn(obj: object, msg: string): void };

/** Runs the authorize and ACS steps. */
export class SamlBroker {
  private readonly cache: DbRequestCache;

  constructor(
    private readonly db: Db,
    private readonly master: MasterKey,
    private readonly configs: SamlConfigService,
    private readonly keys: SpKeys,
    private readonly clockSkewMs: number,
  ) {
    this.cache = new DbRequestCache(db);
  }

  /** The organisation's settings, or a 404. */
  async requireSettings(orgId: string): Promise<SamlSettings> {
    // A malformed ID names nothing (docs/api.md "Identifiers"): 404 without a query.
    const settings = isId(orgId) ? await this.configs.settings(orgId) : null;
    if (!settings) throw new NotFound('No SAML identity provider is configured for this organisation');
    return settings;
  }

  /**
   * Starts a sign-in.
   * @param appRedirectUri - must be registered for the organisation (exact match).
   * @param appState - the app's opaque `state`, returned to it unchanged.
   * @param ip - client address, for the rate limit (shared with the OpenID flow's).
   * @returns the IdP's SSO URL with the deflated, signed AuthnRequest and the RelayState.
   * @throws {NotFound} no IdP. @throws {InvalidRequest} unregistered redirect URI. @throws {RateLimited}
   */
  async authorize(orgId: string, appRedirectUri: string, appState: string | undefined, ip: string): Promise<string> {
    const settings = await this.requireSettings(orgId);
    // Open redirector: a sign-in result may only go to a URI the organisation registered.
    if (!(await fedStore.isRedirectUri(this.db, orgId, appRedirectUri)))
      throw new InvalidRequest('redirect_uri is not registered for this organisation', 'invalid_request');
    await enforce(this.db, `fed-authorize:ip:${ip}`, AUTHORIZE_LIMIT);
    const relayState = random();
    const requestId = `_${randomBytes(20).toString('hex')}`;
    await fedStore.insertState(this.db, {
      stateHash: stateKey(relayState),
      orgId,
      secretsSealed: this.master.seal(JSON.stringify({ requestId }), PENDING_PURPOSE),
      appRedirectUri,
      appState: appState ?? null,
      expiresAt: new Date(Date.now() + REQUEST_TTL_MS),
    });
    const sp = await serviceProvider(settings, this.configs.endpoints(orgId), await this.keys.current(), this.cache, {
      sign: settings.signAuthnRequests,
      requestId,
    });
    return sp.getAuthorizeUrlAsync(relayState, undefined, {});
  }

  /**
   * Finishes a sign-in at the ACS. Before the sign-in is known (RelayState) there is no app URI
   * to go back to, so that is a 400; after it, every failure goes back to the app as `error`
   * (`access_denied`), `error_description` (naming the check) and its `state`.
   * Each refusal after that is logged at `warn` ("SAML response refused") with the check and its
   * real cause, never the assertion's content.
   * @param form - the HTTP-POST binding's `SAMLResponse` and `RelayState`.
   * @param log - the request's logger.
   * @throws {InvalidRequest} when the RelayState names no pending sign-in (and is not, for an
   *   organisation that accepts IdP-initiated sign-ins, a registered app URI).
   */
  async acs(
    orgId: string,
    form: { SAMLResponse: string; RelayState?: string },
    log: RefusalLog,
  ): Promise<{ location: string }> {
    const unknown = () => new InvalidRequest('Unknown or expired sign-in (RelayState)', 'invalid_request');
    if (!isId(orgId)) throw unknown();
    const relayState = form.RelayState ?? '';
    // CSRF and replay: the RelayState must be one Assent issued, and it is used once.
    const pending = relayState ? await fedStore.takeState(this.db, stateKey(relayState), orgId) : null;
    const settings = await this.configs.settings(orgId);
    let target: { appRedirectUri: string; appState: string | null; requestId: string | null };
    if (pending) {
      const { requestId } = JSON.parse(this.master.open(pending.secretsSealed, PENDING_PURPOSE)) as {
        requestId: string;
      };
      target = { appRedirectUri: pending.appRedirectUri, appState: pending.appState, requestId };
    } else if (settings?.allowUnsolicited && (await fedStore.isRedirectUri(this.db, orgId, relayState))) {
      // IdP-initiated, turned on by the organisation: RelayState names the registered app URI.
      target = { appRedirectUri: relayState, appState: null, requestId: null };
    } else throw unknown();
    const back = (params: Record<string, string>) => {
      const url = new URL(target.appRedirectUri);
      for (const [k, v] of Object.entries(params)) url.searchParams.set(k, v);
      if (target.appState !== null) url.searchParams.set('state', target.appState);
      return { location: url.href };
    };
    if (!settings) {
      log.warn({ orgId, check: 'no SAML IdP is configured any more' }, 'SAML response refused');
      return back({ error: 'server_error', error_description: 'The identity provider is no longer configured' });
    }
    let signIn: SamlSignIn;
    let encrypted = false;
    try {
      const xml = decodeResponse(form.SAMLResponse);
      const shape = await inspectResponse(xml, () => this.keys.decryptionKeys());
      encrypted = shape.decryptionKey !== undefined;
      const sp = await serviceProvider(settings, this.configs.endpoints(orgId), await this.keys.current(), this.cache, {
        sign: false,
        unsolicited: target.requestId === null,
        clockSkewMs: this.clockSkewMs,
        signed: { response: shape.responseSigned, assertion: shape.assertionSigned },
        ...(shape.decryptionKey ? { decryptionKey: shape.decryptionKey } : {}),
      });
      signIn = await validateResponse(this.db, sp, form.SAMLResponse, xml, {
        orgId,
        settings,
        acsUrl: this.configs.endpoints(orgId).acsUrl,
        requestId: target.requestId,
        clockSkewMs: this.clockSkewMs,
      });
    } catch (err) {
      if (!(err instanceof SamlCheckError)) throw err;
      // For the operator: the check and its real cause; never the assertion's content (NameID, attributes).
      log.warn({ orgId, idp: settings.entityId, check: err.message, cause: err.detail }, 'SAML response refused');
      // Threat: a decryption oracle (ENCRYPTED_REFUSED); the log alone tells which check failed.
      const check = encrypted ? ENCRYPTED_REFUSED : err.message;
      return back({ error: 'access_denied', error_description: `Sign-in refused: ${check}` });
    }
    const userId = await linkUser(this.db, orgId, signIn.result);
    const code = CODE_PREFIX + random();
    await fedStore.insertCode(this.db, {
      codeHash: sha256(code),
      orgId,
      userId,
      appRedirectUri: target.appRedirectUri,
      // Kept sealed until the session ends: the LogoutRequest names this NameID and SessionIndex.
      idTokenSealed: this.master.seal(JSON.stringify(signIn.session), SAML_SESSION_PURPOSE),
      expiresAt: new Date(Date.now() + CODE_TTL_SECONDS * 1000),
    });
    return back({ code });
  }
}
