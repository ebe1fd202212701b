/**
 * Turns settings as sent (admin API `PUT`, import file) into the row to store
 * (docs/wallet.md "Wallet settings"): defaults applied, every field checked, the verifier key
 * given, kept or generated, then sealed under the master key (ASVS 5.0 V11.2, V13.3).
 */
import canonicalize from 'canonicalize';
import type { MasterKey } from '../../platform/crypto/master-key.js';
import { generateVerifierKey } from './keygen.js';
import { parseCertificates } from './pem.js';
import { chainProblems, keyProblem, policyFrom, type WalletSettingsInput } from './settings-rules.js';
import type { SettingsRow, SettingsValues } from './store.js';

/** The sealing purpose of verifier keys (also the AAD, so a sealed key cannot be moved to another use). */
export const VERIFIER_KEY_PURPOSE = 'wallet-verifier-key';

/** The stored fields an admin sees, compared to name what a change changed (never a value). */
const COMPARED = [
  'profile',
  'verifierCertificateChain',
  'trustedIssuerCertificates',
  'dcqlQuery',
  'claimMapping',
  'stableClaim',
  'sameDeviceOnly',
  'deepLinkScheme',
  'responseEncryption',
] as const;

/** What building settings gives: the row, or the problems; and the names of the changed fields. */
export type BuiltSettings = { problems: string[] } | { problems: []; values: SettingsValues; changed: string[] };

/**
 * Builds the row of an organisation's settings. The key: `verifierPrivateKey` with
 * `verifierCertificateChain`, or `generateVerifierKey: true`, or neither to keep the stored one
 * (a new chain must then match the stored key).
 * @param stored - the current row, or null.
 * @param host - the public URL's host, named by a generated certificate.
 * @returns the problems as `field: problem`, or the values and the changed field names.
 */
export async function buildSettings(
  orgId: string,
  input: WalletSettingsInput,
  stored: SettingsRow | null,
  master: MasterKey,
  host: string,
): Promise<BuiltSettings> {
  const { policy, problems } = policyFrom(input);
  let chainPem: string[];
  let keyPem: string;
  let keyChanged = false;
  if (input.generateVerifierKey === true) {
    if (input.verifierPrivateKey !== undefined || input.verifierCertificateChain !== undefined)
      problems.push('generateVerifierKey: cannot be combined with verifierPrivateKey or verifierCertificateChain');
    const made = await generateVerifierKey(host);
    // Stored as node:crypto writes PEM, so that a later comparison sees the same text.
    chainPem = parseCertificates(made.certificatePem).map((c) => c.toString());
    keyPem = made.privateKeyPem;
    keyChanged = true;
  } else {
    const chain = input.verifierCertificateChain ?? stored?.verifierCertificateChain.join('');
    if (chain === undefined || (input.verifierPrivateKey === undefined && !stored))
      return {
        problems: [
          ...problems,
          'verifierPrivateKey: required with verifierCertificateChain, unless generateVerifierKey is true',
        ],
      };
    const checked = chainProblems(chain);
    problems.push(...checked.problems);
    keyPem = input.verifierPrivateKey ?? master.open(stored!.verifierKeySealed, VERIFIER_KEY_PURPOSE);
    keyChanged = input.verifierPrivateKey !== undefined;
    if (checked.problems.length === 0) {
      const problem = keyProblem(keyPem, checked.certs);
      if (problem) problems.push(problem);
    }
    chainPem = checked.certs.map((c) => c.toString());
  }
  if (problems.length > 0) return { problems };
  const values: SettingsValues = {
    orgId,
    ...policy,
    dcqlQuery: policy.dcqlQuery as unknown,
    verifierCertificateChain: chainPem,
    verifierKeySealed: master.seal(keyPem, VERIFIER_KEY_PURPOSE),
  };
  const changed = COMPARED.filter(
    // Canonical JSON (RFC 8785): jsonb does not keep the order of an object's keys.
    (f) => !stored || canonicalize(stored[f]) !== canonicalize((values as Record<string, unknown>)[f]),
  ) as string[];
  if (keyChanged) changed.push('verifierPrivateKey');
  return { problems: [], values, changed };
}
