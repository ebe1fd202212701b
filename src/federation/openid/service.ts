/**
 * The rules of an organisation's IdP configuration (docs/api.md "Identity management" add, update, get, delete;
 * docs/decisions/0013-federation-broker.md): one configuration per organisation, the client secret
 * sealed and write-only, the registered app redirect URIs, and an audit entry for every change
 * (actor and time, never the secret).
 */

import { auditActor, recordAudit } from '../../organisations/index.js';
import type { Config } from '../../platform/config/load.js';
import { Conflict, InvalidRequest, NotFound } from '../../platform/core/errors.js';
import type { Principal } from '../../platform/core/principal.js';
import type { MasterKey } from '../../platform/crypto/master-key.js';
import type { Db, Executor } from '../../platform/db/open.js';
import type { OutboundPolicy } from '../../platform/net/outbound.js';
import { IDP_FIELDS, type IdpInput, type IdpSettings, mergeSettings, presentSettings } from './config.js';
import { type DiscoveredEndpoints, discoverEndpoints } from './discovery.js';
import { redirectUriProblem } from './redirect-uris.js';
import * as store from './store.js';

/** Purpose label of the sealed client secret (AES-256-GCM under the master key; the envelope carries its version). */
const SECRET_PURPOSE = 'idp-client-secret';

/** Configures organisations' identity providers. */
export class FederationConfigService {
  constructor(
    private readonly db: Db,
    private readonly master: MasterKey,
    private readonly config: Config,
  ) {}

  /** The outbound policy of requests to IdP URLs (`ASSENT_FEDERATION_ALLOW_HTTP_HOSTS`, `ASSENT_DNS_SERVERS`). */
  get policy(): OutboundPolicy {
    return { allowHttpHosts: this.config.federationAllowHttpHosts, dnsServers: this.config.dnsServers };
  }

  /** The callback URI to register at the provider: `<PUBLIC_URL>/v1/organizations/{id}/idp/open-id/callback`. */
  callbackUri(orgId: string): string {
    return `${this.config.publicUrl}/v1/organizations/${orgId}/idp/open-id/callback`;
  }

  /**
   * The organisation's settings with the secret opened, or null when none is configured.
   * @throws {SealError} when the master key cannot open the secret.
   */
  async settings(orgId: string, db: Executor = this.db): Promise<IdpSettings | null> {
    const row = await store.findConfig(db, orgId);
    if (!row) return null;
    const { orgId: _org, clientSecretSealed, createdAt: _c, updatedAt: _u, ...rest } = row;
    return { ...rest, clientSecret: this.master.open(clientSecretSealed, SECRET_PURPOSE) };
  }

  private row(orgId: string, s: IdpSettings) {
    const { clientSecret, ...rest } = s;
    return { orgId, ...rest, clientSecretSealed: this.master.seal(clientSecret, SECRET_PURPOSE) };
  }

  private async audit(db: Executor, orgId: string, actor: Principal, action: string, detail: Record<string, unknown>) {
    await recordAudit(db, { orgId, ...auditActor(actor), action, detail });
  }

  /**
   * Adds the configuration (docs/api.md "Identity management" "Add external IDP"): 201.
   * @throws {InvalidRequest} invalid fields. @throws {Conflict} when one exists already.
   */
  async create(actor: Principal, orgId: string, input: IdpInput) {
    const settings = mergeSettings(input, null, this.config.federationAllowHttpHosts);
    await this.db.transaction(async (tx) => {
      if (!(await store.insertConfig(tx, this.row(orgId, settings))))
        throw new Conflict('An identity provider is already configured for this organisation');
      await this.audit(tx, orgId, actor, 'idp.create', { fields: [...IDP_FIELDS] });
    });
    return presentSettings(settings);
  }

  /**
   * Updates it (docs/api.md "Identity management" "Update external IDP"): absent fields keep their value, so a body
   * without `clientSecret` keeps the stored secret.
   * @throws {NotFound} when none exists. @throws {InvalidRequest} invalid fields.
   */
  async update(actor: Principal, orgId: string, input: IdpInput) {
    return this.db.transaction(async (tx) => {
      const stored = await this.settings(orgId, tx);
      if (!stored) throw new NotFound('No identity provider is configured for this organisation');
      const settings = mergeSettings(input, stored, this.config.federationAllowHttpHosts);
      const changed = IDP_FIELDS.filter((f) => settings[f] !== stored[f]);
      await store.updateConfig(tx, this.row(orgId, settings));
      // The audit names changed fields only; a new secret shows as the word `clientSecret`, never its value.
      await this.audit(tx, orgId, actor, 'idp.update', { fields: changed });
      return presentSettings(settings);
    });
  }

  /** @throws {NotFound} when none exists. */
  async read(orgId: string) {
    const settings = await this.settings(orgId);
    if (!settings) throw new NotFound('No identity provider is configured for this organisation');
    return presentSettings(settings);
  }

  /** Deletes it (docs/api.md "Identity management" "Delete external IDP"): 204. @throws {NotFound} when none exists. */
  async remove(actor: Principal, orgId: string): Promise<void> {
    await this.db.transaction(async (tx) => {
      if (!(await store.deleteConfig(tx, orgId)))
        throw new NotFound('No identity provider is configured for this organisation');
      await this.audit(tx, orgId, actor, 'idp.delete', {});
    });
  }

  /**
   * The endpoints of `issuer`'s discovery document (OpenID Connect Discovery 1.0 §4), fetched
   * through the SSRF guard; nothing is stored (the console's IdP form, docs/web.md "Console").
   * @throws {InvalidRequest} when the document cannot be fetched or used.
   */
  async discover(issuer: string): Promise<DiscoveredEndpoints> {
    return discoverEndpoints(issuer.trim(), this.policy);
  }

  /** The registered app redirect URIs. */
  async appRedirectUris(orgId: string): Promise<string[]> {
    return store.redirectUris(this.db, orgId);
  }

  /**
   * Replaces the registered app redirect URIs.
   * @throws {InvalidRequest} naming each invalid URI.
   */
  async setAppRedirectUris(actor: Principal, orgId: string, uris: string[]): Promise<string[]> {
    const problems = uris
      .map((u, i) => [i, redirectUriProblem(u, this.config.federationAllowHttpHosts)] as const)
      .filter(([, p]) => p);
    if (problems.length > 0)
      throw new InvalidRequest(
        `Invalid redirect URIs: ${problems.map(([i, p]) => `RedirectURIs[${i}]: ${p}`).join('; ')}`,
      );
    const unique = [...new Set(uris)];
    await this.db.transaction(async (tx) => {
      await store.setRedirectUris(tx, orgId, unique);
      await this.audit(tx, orgId, actor, 'idp.app-redirect-uris.update', { uris: unique });
    });
    return unique.sort();
  }
}
