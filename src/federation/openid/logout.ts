/**
 * Logout of a federated session (docs/api.md "Identity management" "Logout OpenID client"; docs/decisions/0013-federation-broker.md): revokes
 * the caller's Assent token family at once, then asks the provider to end its session by an RP-initiated logout
 * request (OpenID Connect RP-Initiated Logout 1.0 §2) sent from the server with `id_token_hint`. A provider failure
 * is logged and never keeps the local logout from completing.
 *
 * A server-side request carries none of the browser's cookies. Providers that keep their session
 * in a browser cookie (oidc-provider, and most others) cannot end that session from it; the
 * answer therefore also names the provider's logout URL (`Link: <…>; rel="end-session"`) for the
 * app to open in the browser, where the provider asks the user and ends its session.
 */
import type { FastifyBaseLogger } from 'fastify';
import type { IdentityService } from '../../identity/index.js';
import { rolesInOrganisation } from '../../organisations/index.js';
import { NotFound } from '../../platform/core/errors.js';
import type { Principal } from '../../platform/core/principal.js';
import type { MasterKey } from '../../platform/crypto/master-key.js';
import type { Db } from '../../platform/db/open.js';
import { guardedFetch } from '../../platform/net/guarded-fetch.js';
import { isId } from '../../platform/util/ids.js';
import { ID_TOKEN_PURPOSE } from './broker.js';
import { loadOpenidClient, rpConfiguration } from './client.js';
import type { FederationConfigService } from './service.js';
import * as store from './store.js';

/** Ends federated sessions (see the module comment). */
export class FederatedLogout {
  /**
   * @param identity - revokes the Assent session, and drops its cached liveness at once.
   * @param configs - the organisation's provider settings.
   */
  constructor(
    private readonly db: Db,
    private readonly master: MasterKey,
    private readonly configs: FederationConfigService,
    private readonly identity: IdentityService,
  ) {}

  /**
   * Ends the caller's session.
   * @param principal - the caller (an access token: its family is the session).
   * @param orgId - the path's organisation.
   * @param log - the request's logger (the ID token is never logged).
   * @returns the provider's front-channel logout URL for the browser, or null when none is configured.
   * @throws {NotFound} when the organisation does not exist.
   */
  async end(principal: Principal, orgId: string, log: FastifyBaseLogger): Promise<string | null> {
    const { db, master, configs } = this;
    if (!isId(orgId) || (await rolesInOrganisation(db, orgId, principal.userId)) === null)
      throw new NotFound('Organisation not found');
    const familyId = principal.familyId!;
    // Threat: the session's tokens still accepted after logout: revoked now, not once the provider has answered.
    await this.identity.revokeSession(principal.userId, familyId, 'idp logout');
    // The ID token is personal data kept only for this session: it goes now, whatever the provider says.
    const session = await store.takeSession(db, familyId);
    const settings = await configs.settings(session?.orgId ?? orgId);
    if (!settings?.logoutUrl) return null;
    const lib = await loadOpenidClient();
    const rp = await rpConfiguration(settings, configs.policy);
    if (session) {
      try {
        const url = lib.buildEndSessionUrl(rp, {
          id_token_hint: master.open(session.idTokenSealed, ID_TOKEN_PURPOSE),
          client_id: settings.clientId,
        });
        const res = await guardedFetch(url, { method: 'GET' }, { ...configs.policy, timeoutMs: 5000 });
        log.info({ status: res.status }, 'provider logout requested');
      } catch (err) {
        log.warn(
          { err: { type: (err as Error).name, message: (err as Error).message } },
          'provider logout failed; the local session is ended',
        );
      }
    }
    return lib.buildEndSessionUrl(rp, { client_id: settings.clientId }).href;
  }
}
