/**
 * The admin API's rules for an organisation's wallet settings (docs/wallet.md "Wallet settings";
 * docs/api.md "Authorization endpoint"): read, replace, delete, each change audited with the names of the changed fields
 * (never a key or certificate, ASVS 5.0 V16.2.1). The verifier's private key is write-only.
 */

import { auditActor, recordAudit } from '../../organisations/index.js';
import { InvalidRequest, NotFound } from '../../platform/core/errors.js';
import type { Principal } from '../../platform/core/principal.js';
import type { MasterKey } from '../../platform/crypto/master-key.js';
import type { Db } from '../../platform/db/open.js';
import { buildSettings, VERIFIER_KEY_PURPOSE } from './build.js';
import { parseCertificates, x509HashClientId } from './pem.js';
import type { VerifierPolicy, WalletSettingsInput } from './settings-rules.js';
import * as store from './store.js';

/** The settings as the admin API answers them: never the private key. */
export interface WalletSettingsView extends Omit<VerifierPolicy, 'verifierCertificateChain' | 'dcqlQuery'> {
  /** PEM, leaf first. */
  verifierCertificateChain: string;
  /** `x509_hash:…` of the leaf (OpenID4VP 1.0 §5.9.3), what wallets see as the verifier. */
  verifierClientId: string;
  dcqlQuery: unknown;
  /** RFC 3339. */
  createdAt: string;
  /** RFC 3339. */
  updatedAt: string;
}

/** The settings a transaction needs: the policy and the verifier's private key (PEM). */
export interface Verifier {
  policy: VerifierPolicy;
  keyPem: string;
}

/**
 * The answer body of stored settings.
 * @param row - the stored row.
 */
export function presentSettings(row: store.SettingsRow): WalletSettingsView {
  return {
    profile: row.profile as VerifierPolicy['profile'],
    verifierCertificateChain: row.verifierCertificateChain.join(''),
    verifierClientId: x509HashClientId(parseCertificates(row.verifierCertificateChain[0]!)[0]!),
    trustedIssuerCertificates: row.trustedIssuerCertificates,
    dcqlQuery: row.dcqlQuery,
    claimMapping: row.claimMapping as Record<string, string[]>,
    stableClaim: row.stableClaim,
    sameDeviceOnly: row.sameDeviceOnly,
    deepLinkScheme: row.deepLinkScheme,
    responseEncryption: row.responseEncryption as VerifierPolicy['responseEncryption'],
    createdAt: row.createdAt.toISOString(),
    updatedAt: row.updatedAt.toISOString(),
  };
}

const notFound = () => new NotFound('This organisation has no wallet settings');

/** Organisations' wallet settings (admin API and the verifier's reads). */
export class WalletSettingsService {
  /**
   * @param db - the database.
   * @param master - seals and opens verifier keys.
   * @param publicHost - the host of ASSENT_PUBLIC_URL, named by generated certificates.
   */
  constructor(
    private readonly db: Db,
    private readonly master: MasterKey,
    private readonly publicHost: string,
  ) {}

  /** @throws {NotFound} when the organisation has no settings. */
  async read(orgId: string): Promise<WalletSettingsView> {
    const row = await store.findSettings(this.db, orgId);
    if (!row) throw notFound();
    return presentSettings(row);
  }

  /**
   * Creates or replaces the settings (absent fields take their defaults; the key is kept unless
   * given or generated). A `PUT` that changes nothing adds no audit entry.
   * @throws {InvalidRequest} naming every invalid field.
   */
  async put(actor: Principal, orgId: string, input: WalletSettingsInput): Promise<WalletSettingsView> {
    return this.db.transaction(async (tx) => {
      const stored = await store.findSettings(tx, orgId);
      const built = await buildSettings(orgId, input, stored, this.master, this.publicHost);
      if (!('values' in built)) throw new InvalidRequest(`Invalid wallet settings: ${built.problems.join('; ')}`);
      if (stored && built.changed.length === 0) return presentSettings(stored);
      const row = await store.upsertSettings(tx, built.values);
      // The audit names the changed fields, never a key or certificate.
      await recordAudit(tx, {
        orgId,
        ...auditActor(actor),
        action: 'wallet.settings.update',
        detail: { fields: built.changed },
      });
      return presentSettings(row);
    });
  }

  /** Deletes the settings: wallet sign-in stops at once. @throws {NotFound} when there are none. */
  async remove(actor: Principal, orgId: string): Promise<void> {
    await this.db.transaction(async (tx) => {
      if (!(await store.deleteSettings(tx, orgId))) throw notFound();
      await recordAudit(tx, {
        orgId,
        ...auditActor(actor),
        action: 'wallet.settings.delete',
        detail: {},
      });
    });
  }

  /** The verifier of the organisation, or null when it has no settings. */
  async verifierOf(orgId: string): Promise<Verifier | null> {
    const row = await store.findSettings(this.db, orgId);
    if (!row) return null;
    const { verifierKeySealed, orgId: _, createdAt: _c, updatedAt: _u, ...policy } = row;
    return {
      policy: policy as unknown as VerifierPolicy,
      keyPem: this.master.open(verifierKeySealed, VERIFIER_KEY_PURPOSE),
    };
  }
}
