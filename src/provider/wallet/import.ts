/**
 * What `assent import` asks of wallet sign-in for an organisation's `wallet` settings
 * (docs/wallet.md "In the import file"; docs/decisions/0004-organisations-as-code.md). Its caller
 * hands `walletSettingsImport(…)` to the import (`app/organisations-as-code/import.ts`), which imports only these types:
 * orgs does not depend on wallet, which depends on orgs (docs/development.md, code layout).
 */
import type { MasterKey } from '../../platform/crypto/master-key.js';
import type { Executor } from '../../platform/db/open.js';
import { buildSettings } from './build.js';
import { presentSettings } from './settings.js';
import { chainProblems, policyFrom, type WalletSettingsInput } from './settings-rules.js';
import * as store from './store.js';

/** What an import did to an organisation's settings; `fields` name what changed (never a value). */
export type ImportedWalletOutcome =
  | { status: 'created' | 'updated'; fields: string[]; verifierClientId: string }
  | { status: 'unchanged'; verifierClientId: string }
  | { status: 'refused'; problems: string[] };

/** Wallet sign-in's side of the import. */
export interface WalletSettingsImport {
  /** Every problem of the entry that needs no stored state, each as `field: problem` (the admin API's rules). */
  problems(settings: WalletSettingsInput): string[];
  /**
   * Creates or replaces the settings. `generateVerifierKey: true` makes a key only when the
   * organisation has none yet, so that a repeated import keeps the verifier identity wallets know.
   * @param tx - the import's transaction, so that a bad file writes nothing.
   * @returns `refused` when the entry is invalid against the stored settings (e.g. no key at all).
   */
  upsert(tx: Executor, orgId: string, settings: WalletSettingsInput): Promise<ImportedWalletOutcome>;
}

/**
 * Wallet sign-in's side of the import.
 * @param master - seals the verifier keys.
 * @param publicHost - the host of ASSENT_PUBLIC_URL, named by generated certificates.
 */
export function walletSettingsImport(master: MasterKey, publicHost: string): WalletSettingsImport {
  return {
    problems(settings) {
      const { problems } = policyFrom(settings);
      // Import files are kept in repositories: they carry no secret (docs/decisions/0016-oidc-relying-parties.md).
      if (settings.verifierPrivateKey !== undefined)
        problems.push('verifierPrivateKey: an import file carries no secret; use generateVerifierKey or the admin API');
      if (settings.verifierCertificateChain !== undefined)
        problems.push(...chainProblems(settings.verifierCertificateChain).problems);
      return problems;
    },
    async upsert(tx, orgId, settings) {
      const stored = await store.findSettings(tx, orgId);
      const input = stored && settings.generateVerifierKey ? { ...settings, generateVerifierKey: false } : settings;
      const built = await buildSettings(orgId, input, stored, master, publicHost);
      if (!('values' in built)) return { status: 'refused', problems: built.problems };
      if (stored && built.changed.length === 0)
        return { status: 'unchanged', verifierClientId: presentSettings(stored).verifierClientId };
      const row = await store.upsertSettings(tx, built.values);
      return {
        status: stored ? 'updated' : 'created',
        fields: built.changed,
        verifierClientId: presentSettings(row).verifierClientId,
      };
    },
  };
}
