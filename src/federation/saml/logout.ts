/**
 * Single logout, SP-initiated, HTTP-Redirect binding (SAML 2.0 Profiles §4.4; Bindings §3.4):
 * `POST …/idp/saml/logout` revokes the caller's Assent session at once, then answers the IdP's
 * SingleLogoutService URL with a signed LogoutRequest naming the session's NameID and SessionIndex,
 * for the app to open in the browser (the IdP's session lives in the browser's cookie, so only the
 * browser can end it; docs/federation.md "SAML 2.0"). The IdP then sends the browser to
 * `…/idp/saml/logout/callback` with its LogoutResponse, which Assent checks (Issuer, InResponseTo a
 * LogoutRequest it sent, the signature when there is one) before sending the browser on to the
 * app's registered URI, if one was named.
 */
import type { Profile } from '@node-saml/node-saml';
import type { FastifyBaseLogger } from 'fastify';
import type { MasterKey } from '../../crypto/master-key.js';
import type { Db } from '../../db/open.js';
import type { Principal } from '../../http/auth.js';
import { BadRequest, NotFound } from '../../http/errors.js';
import type { IdentityService } from '../../identity/service.js';
import { rolesInOrganisation } from '../../orgs/membership.js';
import { isId } from '../../util/ids.js';
import * as fedStore from '../store.js';
import { SAML_SESSION_PURPOSE } from './broker.js';
import { describeFailure } from './checks.js';
import type { SamlSession } from './response.js';
import type { SamlConfigService } from './service.js';
import { DbRequestCache, serviceProvider } from './sp.js';
import type { SpKeys } from './sp-keys.js';

/** Ends SAML-federated sessions (see the module comment). */
export class SamlLogout {
  private readonly cache: DbRequestCache;

  constructor(
    private readonly db: Db,
    private readonly master: MasterKey,
    private readonly configs: SamlConfigService,
    private readonly keys: SpKeys,
    private readonly identity: IdentityService,
  ) {
    this.cache = new DbRequestCache(db);
  }

  /**
   * Ends the caller's session.
   * @param principal - the caller (an access token: its family is the session).
   * @param returnTo - a registered app URI the browser goes to after the IdP's logout, or undefined.
   * @param log - the request's logger (never the NameID).
   * @returns the IdP's logout URL with the signed LogoutRequest, or null when the IdP has no
   *   SingleLogoutService or the session was not a SAML sign-in.
   * @throws {NotFound} unknown organisation. @throws {BadRequest} `returnTo` not registered.
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
      throw new BadRequest('redirect_uri is not registered for this organisation', 'invalid_request');
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
    const sp = serviceProvider(settings, this.configs.endpoints(orgId), await this.keys.current(), this.cache, {
      sign: true,
    });
    const profile = { ...session, issuer: settings.entityId } as Profile;
    return sp.getLogoutUrlAsync(profile, returnTo ?? '', {});
  }

  /**
   * Checks the IdP's LogoutResponse.
   * @param query - the parsed query (`SAMLResponse`, `RelayState`, `SigAlg`, `Signature`).
   * @param rawQuery - the query string as sent (the signature covers its exact bytes).
   * @returns where to send the browser: the registered app URI of `RelayState`, or null.
   * @throws {BadRequest} when the response is not a successful answer to a LogoutRequest Assent sent.
   */
  async callback(orgId: string, query: Record<string, string>, rawQuery: string): Promise<string | null> {
    if (!isId(orgId)) throw new NotFound('No SAML identity provider is configured for this organisation');
    const settings = await this.configs.settings(orgId);
    if (!settings) throw new NotFound('No SAML identity provider is configured for this organisation');
    const sp = serviceProvider(settings, this.configs.endpoints(orgId), await this.keys.current(), this.cache, {
      sign: false,
    });
    try {
      const { loggedOut } = await sp.validateRedirectAsync(query, rawQuery);
      if (!loggedOut) throw new Error('not a LogoutResponse');
    } catch (err) {
      throw new BadRequest(`Logout response refused: ${describeFailure(err)}`, 'invalid_request');
    }
    const relayState = query.RelayState;
    return relayState && (await fedStore.isRedirectUri(this.db, orgId, relayState)) ? relayState : null;
  }
}
