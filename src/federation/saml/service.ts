/**
 * The rules of an organisation's SAML IdP configuration (docs/federation.md "SAML 2.0";
 * docs/decisions/0022-saml-federation.md): one per organisation, beside the OpenID provider, with
 * the same statuses as `…/idp/open-id` (POST 201 or 409, PUT/GET/DELETE 404 when none exists) and an
 * audit entry for every change (actor and time; `idp.saml.create`, `idp.saml.update` with the
 * changed fields, `idp.saml.delete`).
 */

import { auditActor, recordAudit } from '../../organisations/index.js';
import type { Config } from '../../platform/config/load.js';
import { Conflict, InvalidRequest, NotFound } from '../../platform/core/errors.js';
import type { Principal } from '../../platform/core/principal.js';
import type { Db, Executor } from '../../platform/db/open.js';
import type { OutboundPolicy } from '../../platform/net/outbound.js';
import { idpUrlProblem } from '../openid/config.js';
import {
  mergeSamlSettings,
  presentSamlSettings,
  SAML_FIELDS,
  type SamlInput,
  type SamlSettings,
  type SpEndpoints,
} from './config.js';
import { fetchIdpMetadata, type IdpMetadata, parseIdpMetadata } from './metadata.js';
import * as store from './store.js';

const NONE = 'No SAML identity provider is configured for this organisation';
type Log = { warn(obj: object, msg: string): void };

/** Configures organisations' SAML IdPs. */
export class SamlConfigService {
  constructor(
    private readonly db: Db,
    private readonly config: Config,
  ) {}

  /** The outbound policy of the metadata fetch (`ASSENT_FEDERATION_ALLOW_HTTP_HOSTS`, `ASSENT_DNS_SERVERS`). */
  get policy(): OutboundPolicy {
    return { allowHttpHosts: this.config.federationAllowHttpHosts, dnsServers: this.config.dnsServers };
  }

  /** Assent's entity ID (its metadata URL), ACS URL and SLO URL for the organisation. */
  endpoints(orgId: string): SpEndpoints {
    const base = `${this.config.publicUrl}/v1/organizations/${orgId}/idp/saml`;
    return { spEntityId: `${base}/metadata`, acsUrl: `${base}/acs`, spSloUrl: `${base}/logout/callback` };
  }

  /** The organisation's settings, or null. */
  async settings(orgId: string, db: Executor = this.db): Promise<SamlSettings | null> {
    const row = await store.findConfig(db, orgId);
    if (!row) return null;
    const { orgId: _o, createdAt: _c, updatedAt: _u, ...settings } = row;
    return settings;
  }

  /** What `metadataXml` or `metadataUrl` says, or null when the body names neither. */
  private async metadata(input: SamlInput, log: Log): Promise<IdpMetadata | null> {
    const url = input.metadataUrl?.trim();
    if (input.metadataXml === undefined && !url) return null;
    const problem =
      input.metadataXml === undefined && url ? idpUrlProblem(url, this.config.federationAllowHttpHosts) : null;
    if (problem) throw new InvalidRequest(`Invalid SAML IdP configuration: metadataUrl: ${problem}`);
    const xml = input.metadataXml ?? (await fetchIdpMetadata(url!, { ...this.policy, timeoutMs: 5000 }, log));
    return parseIdpMetadata(xml, input.entityId);
  }

  private async audit(db: Executor, orgId: string, actor: Principal, action: string, detail: Record<string, unknown>) {
    await recordAudit(db, { orgId, ...auditActor(actor), action, detail });
  }

  /**
   * Adds the configuration: 201.
   * @throws {InvalidRequest} invalid fields or metadata. @throws {Conflict} when one exists already.
   */
  async create(actor: Principal, orgId: string, input: SamlInput, log: Log) {
    const settings = mergeSamlSettings(
      input,
      await this.metadata(input, log),
      null,
      this.config.federationAllowHttpHosts,
    );
    await this.db.transaction(async (tx) => {
      if (!(await store.insertConfig(tx, { orgId, ...settings })))
        throw new Conflict('A SAML identity provider is already configured for this organisation');
      await this.audit(tx, orgId, actor, 'idp.saml.create', { fields: [...SAML_FIELDS] });
    });
    return presentSamlSettings(settings, this.endpoints(orgId));
  }

  /**
   * Updates it: absent fields keep their value; a `metadataUrl` or `metadataXml` is read again.
   * @throws {NotFound} when none exists. @throws {InvalidRequest} invalid fields or metadata.
   */
  async update(actor: Principal, orgId: string, input: SamlInput, log: Log) {
    if (!(await this.settings(orgId))) throw new NotFound(NONE);
    const metadata = await this.metadata(input, log);
    return this.db.transaction(async (tx) => {
      const stored = await this.settings(orgId, tx);
      if (!stored) throw new NotFound(NONE);
      const settings = mergeSamlSettings(input, metadata, stored, this.config.federationAllowHttpHosts);
      const changed = SAML_FIELDS.filter((f) => JSON.stringify(settings[f]) !== JSON.stringify(stored[f]));
      await store.updateConfig(tx, { orgId, ...settings });
      await this.audit(tx, orgId, actor, 'idp.saml.update', { fields: changed });
      return presentSamlSettings(settings, this.endpoints(orgId));
    });
  }

  /** @throws {NotFound} when none exists. */
  async read(orgId: string) {
    const settings = await this.settings(orgId);
    if (!settings) throw new NotFound(NONE);
    return presentSamlSettings(settings, this.endpoints(orgId));
  }

  /** Deletes it: 204. @throws {NotFound} when none exists. */
  async remove(actor: Principal, orgId: string): Promise<void> {
    await this.db.transaction(async (tx) => {
      if (!(await store.deleteConfig(tx, orgId))) throw new NotFound(NONE);
      await this.audit(tx, orgId, actor, 'idp.saml.delete', {});
    });
  }
}
