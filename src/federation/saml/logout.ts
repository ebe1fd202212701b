/**
 * Single logout (SAML 2.0 Profiles §4.4; docs/federation.md "SAML 2.0"), at Assent's one
 * SingleLogoutService `…/idp/saml/logout/callback`, on the HTTP-Redirect (GET) and HTTP-POST (POST)
 * bindings (Bindings §3.4, §3.5), the two the SP metadata advertises:
 * - SP-initiated: `POST …/idp/saml/logout` revokes the caller's Assent session at once, then answers
 *   the IdP's SingleLogoutService URL with a signed LogoutRequest naming the session's NameID and
 *   SessionIndex, for the app to open in the browser (the IdP's session lives in the browser's
 *   cookie, so only the browser can end it). The IdP's LogoutResponse comes back to the SLO
 *   endpoint: it must be signed by the IdP (Profiles §4.4.4.2), issued by it, addressed to the SLO
 *   endpoint (Destination), successful, and answer a LogoutRequest Assent sent (`InResponseTo`, a
 *   `saml_requests` row of kind `logout`, taken once). The browser then goes on to the app's
 *   registered URI named at the start, if any.
 * - IdP-initiated: a signed LogoutRequest from the IdP ends the sessions it names (`idp-logout.ts`).
 * Every refused message is logged (warn, `SAML logout message refused`) with the organisation, the
 * binding, the message type and the failed check, never the message; the answer is a 400 naming the check.
 */
import type { Profile } from '@node-saml/node-saml';
import type { FastifyBaseLogger } from 'fastify';
import type { IdentityService } from '../../identity/index.js';
import { rolesInOrganisation } from '../../organisations/index.js';
import { InvalidRequest, NotFound } from '../../platform/core/errors.js';
import type { Principal } from '../../platform/core/principal.js';
import type { MasterKey } from '../../platform/crypto/master-key.js';
import type { Db } from '../../platform/db/open.js';
import { isId } from '../../platform/util/ids.js';
import * as fedStore from '../openid/store.js';
import { SAML_SESSION_PURPOSE } from './broker.js';
import { IdpLogout, type IdpLogoutOutcome } from './idp-logout.js';
import { type LogoutParameter, LogoutRefusal, readPost, readRedirect } from './logout-binding.js';
import { checkEnvelope, type Expected, statusOf } from './logout-checks.js';
import type { SamlSession } from './response.js';
import type { SamlConfigService } from './service.js';
import { DbRequestCache, serviceProvider } from './sp.js';
import type { SpKeys } from './sp-keys.js';
import * as store from './store.js';

/** A logout message as it arrived: the HTTP-Redirect binding's query, or the HTTP-POST binding's form. */
export type LogoutMessage =
  | { binding: 'HTTP-Redirect'; fields: Record<string, string | undefined>; rawQuery: string }
  | { binding: 'HTTP-POST'; fields: Record<string, string | undefined> };

/** Where the browser goes after a logout message: a URL (303), or a JSON answer `{ LoggedOut }`. */
export type LogoutOutcome = IdpLogoutOutcome;

const SUCCESS = 'urn:oasis:names:tc:SAML:2.0:status:Success';

/** Ends SAML-federated sessions (see the module comment). */
export class SamlLogout {
  private readonly cache: DbRequestCache;
  private readonly idp: IdpLogout;

  constructor(
    private readonly db: Db,
    private readonly master: MasterKey,
    private readonly configs: SamlConfigService,
    private readonly keys: SpKeys,
    private readonly identity: IdentityService,
    clockSkewMs?: number,
  ) {
    // The LogoutRequests' IDs are stored as kind `logout`: only a LogoutResponse can answer them.
    this.cache = new DbRequestCache(db, 'logout');
    this.idp = new IdpLogout(db, master, identity, clockSkewMs);
  }

  /**
   * Ends the caller's session.
   * @param principal - the caller (an access token: its family is the session).
   * @param returnTo - a registered app URI the browser goes to after the IdP's logout, or undefined.
   * @param log - the request's logger (never the NameID).
   * @returns the IdP's logout URL with the signed LogoutRequest, or null when the IdP has no
   *   SingleLogoutService or the session was not a SAML sign-in.
   * @throws {NotFound} unknown organisation. @throws {InvalidRequest} `returnTo` not registered.
   */
  async end(
    principal: Principal,
    orgId: string,
    returnTo: string | undefined,
    log: FastifyBaseLogger,
  ): Promise<string | null> {
    if (!isId(orgId) || (await rolesInOrganisation(this.db, orgId, principal.userId)) === null)
      throw new NotFound('Organisation not found');
    // Open redirector: the browser is sent on only to a URI the organisation registered.
    if (returnTo !== undefined && !(await fedStore.isRedirectUri(this.db, orgId, returnTo)))
      throw new InvalidRequest('redirect_uri is not registered for this organisation', 'invalid_request');
    const familyId = principal.familyId!;
    // Threat: the session's tokens still accepted after logout: revoked now, whatever the IdP does.
    await this.identity.revokeSession(principal.userId, familyId, 'saml logout');
    // The NameID is personal data kept only for this session: it goes now.
    const kept = await fedStore.takeSession(this.db, familyId);
    const settings = await this.configs.settings(kept?.orgId ?? orgId);
    if (!kept || !settings?.sloUrl) return null;
    let session: SamlSession;
    try {
      session = JSON.parse(this.master.open(kept.idTokenSealed, SAML_SESSION_PURPOSE)) as SamlSession;
    } catch {
      log.info('the session was not a SAML sign-in; no LogoutRequest');
      return null;
    }
    const sp = await serviceProvider(settings, this.configs.endpoints(orgId), await this.keys.current(), this.cache, {
      sign: true,
    });
    const profile = { ...session, issuer: settings.entityId } as Profile;
    return sp.getLogoutUrlAsync(profile, returnTo ?? '', {});
  }

  /**
   * Handles a message at the SingleLogoutService: a LogoutResponse to Assent's LogoutRequest, or
   * the IdP's LogoutRequest (see the module comment).
   * @param message - the binding and its fields (`SAMLResponse` or `SAMLRequest`, `RelayState`,
   *   and on HTTP-Redirect `SigAlg`, `Signature` and the raw query the signature covers).
   * @param log - the request's logger: each refusal is logged with its check, never the message.
   * @returns for a LogoutResponse, the registered app URI of `RelayState` or `{ loggedOut: true }`;
   *   for a LogoutRequest, the IdP's SLO URL with Assent's signed LogoutResponse.
   * @throws {NotFound} no IdP configured. @throws {InvalidRequest} the message is refused (nothing changes).
   */
  async receive(orgId: string, message: LogoutMessage, log: FastifyBaseLogger): Promise<LogoutOutcome> {
    const settings = isId(orgId) ? await this.configs.settings(orgId) : null;
    if (!settings) throw new NotFound('No SAML identity provider is configured for this organisation');
    const { fields } = message;
    if ((fields.SAMLRequest === undefined) === (fields.SAMLResponse === undefined))
      throw new InvalidRequest('Send one of SAMLRequest or SAMLResponse', 'invalid_request');
    const parameter: LogoutParameter = fields.SAMLRequest !== undefined ? 'SAMLRequest' : 'SAMLResponse';
    const type = parameter === 'SAMLRequest' ? 'LogoutRequest' : 'LogoutResponse';
    const sp = this.configs.endpoints(orgId);
    const expected: Expected = { issuer: settings.entityId, destination: sp.spSloUrl };
    try {
      const verified =
        message.binding === 'HTTP-Redirect'
          ? await readRedirect(message.rawQuery, parameter, settings.signingCertificates)
          : await readPost(fields, parameter, settings.signingCertificates);
      if (parameter === 'SAMLRequest')
        return await this.idp.answer(orgId, settings, sp, await this.keys.current(), verified, log);
      await this.checkResponse(verified.root, expected);
      const relayState = verified.relayState;
      return relayState && (await fedStore.isRedirectUri(this.db, orgId, relayState))
        ? { location: relayState }
        : { loggedOut: true };
    } catch (err) {
      if (!(err instanceof LogoutRefusal)) throw err;
      // The operator sees why (the check), never the message: it names the user (NameID).
      log.warn({ orgId, binding: message.binding, type, check: err.message }, 'SAML logout message refused');
      throw new InvalidRequest(`${type} refused: ${err.message}`, 'invalid_request');
    }
  }

  /**
   * Checks a verified LogoutResponse (Profiles §4.4.4.2; Core §3.2.2): envelope, an `InResponseTo`
   * naming a LogoutRequest Assent sent and not yet answered (taken now, so a replay fails), Success.
   * @throws {LogoutRefusal} naming the failed check.
   */
  private async checkResponse(root: Element, expected: Expected): Promise<void> {
    checkEnvelope(root, expected);
    const inResponseTo = root.getAttribute('InResponseTo');
    // Threat: an unsolicited or replayed LogoutResponse driving the browser (Profiles §4.4.4.2).
    if (!inResponseTo) throw new LogoutRefusal('the LogoutResponse answers no request (InResponseTo)');
    if (!(await store.takeRequest(this.db, inResponseTo, 'logout')))
      throw new LogoutRefusal(
        'the LogoutResponse does not answer a pending LogoutRequest Assent sent (InResponseTo unknown, expired or used)',
      );
    if (statusOf(root) !== SUCCESS) throw new LogoutRefusal('the identity provider reports its logout failed (Status)');
  }
}
