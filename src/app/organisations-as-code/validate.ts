/**
 * Validation of an `assent import` file before anything is written (docs/decisions/0004-organisations-as-code.md):
 * every problem is reported at once, named by its JSON path.
 */
import { Value } from 'typebox/value';
import type { ConsentHistoryImport } from '../../consent/index.js';
import type { RedirectUriImport } from '../../federation/index.js';
import { normaliseUsername, passwordProblem } from '../../identity/index.js';
import { findNul } from '../../platform/util/nul.js';
import type { OidcClientImport, WalletSettingsImport } from '../../provider/index.js';
import { ImportFile, type ImportOrganisation } from './schema.js';

/** Thrown when the file is not a valid import file; `problems` name JSON paths like `$.organisations[0].key`. */
export class ImportValidationError extends Error {
  override name = 'ImportValidationError';
  constructor(readonly problems: string[]) {
    super(`invalid import file:\n  ${problems.join('\n  ')}`);
  }
}

/** A JSON pointer (`/organisations/0/key`) as a JSON path (`$.organisations[0].key`). */
function jsonPath(pointer: string): string {
  return `$${pointer
    .split('/')
    .slice(1)
    .map((p) => (/^\d+$/.test(p) ? `[${p}]` : `.${p.replace(/~1/g, '/').replace(/~0/g, '~')}`))
    .join('')}`;
}

/** Adds a problem for each item of `items` whose key an earlier item already has. */
function duplicates<T>(items: T[] | undefined, keyOf: (item: T) => string, at: string, problems: string[]): void {
  const seen = new Set<string>();
  (items ?? []).forEach((item, i) => {
    const key = keyOf(item);
    if (seen.has(key)) problems.push(`${at}[${i}]: duplicate "${key}"`);
    seen.add(key);
  });
}

/**
 * Validates an import document: the schema (unknown fields are errors), then keys unique within
 * their list, one password per username across the file, and each password against the password
 * policy (`identity/passwords/policy.ts`; NIST SP 800-63B §5.1.1.2), and each app redirect URI against
 * federation's rule, and each relying party against the OpenID provider's rule.
 *
 * @param input - parsed JSON.
 * @param redirectUris - federation's rule for app redirect URIs (`redirectUriImport`).
 * @param oidcClients - the OpenID provider's rule for relying parties (`oidcClientImport`); when
 *   absent, a file that lists `oidcClients` is refused (this caller could not store them).
 * @param wallet - wallet sign-in's rule for the `wallet` settings (`walletSettingsImport`); when
 *   absent, a file that lists `wallet` is refused.
 * @param consentHistory - the consent domain's rule for the individuals' `consentHistory`
 *   (`consentHistoryImport`); when absent, a file that lists one is refused.
 * @returns the typed file.
 * @throws {ImportValidationError} naming each problem's JSON path.
 */
export function validateImportFile(
  input: unknown,
  redirectUris: Pick<RedirectUriImport, 'problem'>,
  oidcClients?: Pick<OidcClientImport, 'problems'>,
  wallet?: Pick<WalletSettingsImport, 'problems'>,
  consentHistory?: Pick<ConsentHistoryImport, 'problems'>,
): ImportFile {
  const problems: string[] = [];
  for (const error of Value.Errors(ImportFile, input)) {
    if (error.keyword === 'boolean') continue; // reported by its `additionalProperties` twin below
    if (error.keyword === 'additionalProperties') {
      for (const name of (error.params as { additionalProperties: string[] }).additionalProperties)
        problems.push(`${jsonPath(`${error.instancePath}/${name}`)}: unknown field`);
    } else if (error.keyword === 'enum') {
      const allowed = (error.params as { allowedValues: unknown[] }).allowedValues;
      problems.push(
        `${jsonPath(error.instancePath)}: must be one of ${allowed.map((v) => JSON.stringify(v)).join(', ')}`,
      );
    } else {
      problems.push(`${jsonPath(error.instancePath)}: ${error.message}`);
    }
  }
  const nul = findNul(input, '$');
  if (nul) problems.push(`${nul}: must not contain the NUL character`);
  if (problems.length) throw new ImportValidationError(problems);
  const file = input as ImportFile;
  duplicates(file.clients, (c) => c.clientId, '$.clients', problems);
  duplicates(file.organisations, (o) => o.key, '$.organisations', problems);
  const passwords = new Map<string, string>();
  file.organisations?.forEach((org, o) => {
    const at = `$.organisations[${o}]`;
    duplicates(org.purposes, (p) => p.key, `${at}.purposes`, problems);
    for (const [i, p] of (org.purposes ?? []).entries()) {
      duplicates(p.attributes, (a) => a.key, `${at}.purposes[${i}].attributes`, problems);
    }
    duplicates(org.admins, (u) => normaliseUsername(u.username), `${at}.admins`, problems);
    duplicates(org.individuals, (u) => normaliseUsername(u.username), `${at}.individuals`, problems);
    for (const [list, people] of [
      ['admins', org.admins],
      ['individuals', org.individuals],
    ] as const) {
      people?.forEach((u, i) => {
        const name = normaliseUsername(u.username);
        if (passwords.has(name) && passwords.get(name) !== u.password)
          problems.push(`${at}.${list}[${i}].password: differs from an earlier entry for "${u.username}"`);
        passwords.set(name, u.password);
        const weak = passwordProblem(u.password, { username: name });
        if (weak) problems.push(`${at}.${list}[${i}].password: ${weak}`);
      });
    }
    // Federation (docs/decisions/0013-federation-broker.md): the same rule as the admin API; http only at loopback
    // here (no operator list).
    org.redirectUris?.forEach((uri, i) => {
      const problem = redirectUris.problem(uri);
      if (problem) problems.push(`${at}.redirectUris[${i}]: ${problem}`);
    });
    // Relying parties (docs/decisions/0016-oidc-relying-parties.md): the admin API's rule.
    if (org.oidcClients && !oidcClients) problems.push(`${at}.oidcClients: this caller cannot import relying parties`);
    duplicates(org.oidcClients, (c) => c.clientId, `${at}.oidcClients`, problems);
    org.oidcClients?.forEach((c, i) => {
      for (const problem of oidcClients?.problems(c) ?? []) problems.push(`${at}.oidcClients[${i}].${problem}`);
    });
    // Wallet sign-in (docs/wallet.md "Wallet settings"): the admin API's rules.
    if (org.wallet && !wallet) problems.push(`${at}.wallet: this caller cannot import wallet settings`);
    if (org.wallet) for (const problem of wallet?.problems(org.wallet) ?? []) problems.push(`${at}.wallet.${problem}`);
    historyProblems(org, at, consentHistory, problems);
  });
  if (problems.length) throw new ImportValidationError(problems);
  return file;
}

/**
 * Adds the problems of the individuals' `consentHistory` (docs/operations.md "Consent history"): each
 * event's purpose and data attribute must be declared by the organisation in the same file, and the
 * consent domain's time rules hold.
 */
function historyProblems(
  org: ImportOrganisation,
  at: string,
  consentHistory: Pick<ConsentHistoryImport, 'problems'> | undefined,
  problems: string[],
): void {
  const now = new Date();
  org.individuals?.forEach((u, i) => {
    if (!u.consentHistory) return;
    const path = `${at}.individuals[${i}].consentHistory`;
    if (!consentHistory) {
      problems.push(`${path}: this caller cannot import consent history`);
      return;
    }
    u.consentHistory.forEach((e, n) => {
      const purpose = org.purposes?.find((p) => p.key === e.purpose);
      if (!purpose) problems.push(`${path}[${n}].purpose: "${e.purpose}" is not a purpose of this organisation`);
      else if (!purpose.attributes?.some((a) => a.key === e.attribute))
        problems.push(`${path}[${n}].attribute: "${e.attribute}" is not a data attribute of purpose "${e.purpose}"`);
    });
    for (const problem of consentHistory.problems(u.consentHistory, now)) problems.push(`${path}${problem}`);
  });
}
