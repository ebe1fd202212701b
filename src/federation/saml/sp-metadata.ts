/**
 * Assent's SP metadata for one organisation (SAML 2.0 Metadata §2.4.4): entity ID (the metadata's
 * own URL), AssertionConsumerService (HTTP-POST), SingleLogoutService (HTTP-Redirect and HTTP-POST), the NameID
 * format asked for, and the signing and encryption certificates (`sp-keys.ts`, `sp-metadata-keys.ts`). It is public, like a JWKS: an IdP
 * is configured from it before the organisation's IdP is, so it needs no IdP configuration.
 */
import { rolesInOrganisation } from '../../organisations/index.js';
import { NotFound } from '../../platform/core/errors.js';
import type { Db } from '../../platform/db/open.js';
import { isId } from '../../platform/util/ids.js';
import { PERSISTENT } from './config.js';
import { withSloBindings } from './logout-binding.js';
import type { SamlConfigService } from './service.js';
import { loadNodeSaml } from './sp.js';
import type { SpKeys } from './sp-keys.js';
import { withKeyDescriptors } from './sp-metadata-keys.js';

/** A user ID no user has: `rolesInOrganisation` then tells only whether the organisation exists. */
const NOBODY = '00000000-0000-0000-0000-000000000000';

/** Serves the SP metadata. */
export class SamlMetadataService {
  constructor(
    private readonly db: Db,
    private readonly configs: SamlConfigService,
    private readonly keys: SpKeys,
  ) {}

  /**
   * The metadata XML.
   * @throws {NotFound} when the organisation does not exist.
   */
  async xml(orgId: string): Promise<string> {
    if (!isId(orgId) || (await rolesInOrganisation(this.db, orgId, NOBODY)) === null)
      throw new NotFound('Organisation not found');
    const sp = this.configs.endpoints(orgId);
    const settings = await this.configs.settings(orgId);
    const { generateServiceProviderMetadata } = await loadNodeSaml();
    const xml = generateServiceProviderMetadata({
      issuer: sp.spEntityId,
      callbackUrl: sp.acsUrl,
      logoutCallbackUrl: sp.spSloUrl,
      identifierFormat: settings?.nameIdFormat ?? PERSISTENT,
      wantAssertionsSigned: true,
    });
    // Keys and AuthnRequestsSigned are Assent's own: node-saml publishes one encryption key at most,
    // and says AuthnRequestsSigned="true" whenever it is given a signing key.
    return withKeyDescriptors(withSloBindings(xml), {
      authnRequestsSigned: settings?.signAuthnRequests ?? true,
      signing: await this.keys.certificates('signing'),
      encryption: await this.keys.certificates('encryption'),
    });
  }
}
