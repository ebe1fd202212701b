/**
 * `assent import FILE`: creates or updates, idempotently by key, what an import file declares,
 * in one transaction, so a bad file writes nothing (docs/decisions/0004-organisations-as-code.md, "Import:
 * organisations as code").
 */
import { Value } from 'typebox/value';
import type { Db, Executor } from '../db/open.js';
import type { RedirectUriImport } from '../federation/redirect-uris.js';
import { type Argon2Params, hashPassword, needsRehash, verifyPassword } from '../identity/passwords.js';
import { normaliseUsername } from '../identity/service.js';
import type { OidcClientImport } from '../oidc/import.js';
import { normalisePassword, passwordProblem } from '../passwords/policy.js';
import { ROLE_BY_NAME } from '../users/roles.js';
import { findNul } from '../util/nul.js';
import { recordAudit } from './audit.js';
import { ImportFile, type ImportOrganisation, type ImportResult } from './import-schema.js';
import * as store from './store.js';

/** Thrown when the file is not a valid import file; `problems` name JSON paths like `$.organisations[0].key`. */
export class ImportValidationError extends Error {
  override name = 'ImportValidationError';
  constructor(readonly problems: string[]) {
    super(`invalid import file:\n  ${problems.join('\n  ')}`);
  }
}

function jsonPath(pointer: string): string {
  return `$${pointer
    .split('/')
    .slice(1)
    .map((p) => (/^\d+$/.test(p) ? `[${p}]` : `.${p.replace(/~1/g, '/').replace(/~0/g, '~')}`))
    .join('')}`;
}

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
 * policy (`passwords/policy.ts`; NIST SP 800-63B §5.1.1.2), and each app redirect URI against
 * federation's rule, and each relying party against the OpenID provider's rule.
 *
 * @param input - parsed JSON.
 * @param redirectUris - federation's rule for app redirect URIs (`redirectUriImport`).
 * @param oidcClients - the OpenID provider's rule for relying parties (`oidcClientImport`); when
 *   absent, a file that lists `oidcClients` is refused (this caller could not store them).
 * @returns the typed file.
 * @throws {ImportValidationError} naming each problem's JSON path.
 */
export function validateImportFile(
  input: unknown,
  redirectUris: Pick<RedirectUriImport, 'problem'>,
  oidcClients?: Pick<OidcClientImport, 'problems'>,
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
  });
  if (problems.length) throw new ImportValidationError(problems);
  return file;
}

/**
 * Hashes each distinct password once, in its NFKC form (NIST SP 800-63B §5.1.1.2), keeping a stored
 * hash that already matches that form (idempotence).
 */
async function resolveHashes(db: Db, file: ImportFile, params: Argon2Params): Promise<Map<string, string>> {
  const wanted = new Map<string, string>();
  for (const org of file.organisations ?? [])
    for (const u of [...(org.admins ?? []), ...(org.individuals ?? [])])
      wanted.set(normaliseUsername(u.username), normalisePassword(u.password));
  const existing = await store.usersByUsername(db, [...wanted.keys()]);
  const hashes = new Map<string, string>();
  await Promise.all(
    [...wanted].map(async ([username, password]) => {
      const stored = existing.get(username)?.passwordHash;
      const keep = stored && !needsRehash(stored, params) && (await verifyPassword(stored, password));
      hashes.set(username, keep ? stored : await hashPassword(password, params));
    }),
  );
  return hashes;
}

async function importOrganisation(
  tx: Db,
  org: ImportOrganisation,
  at: string,
  hashes: Map<string, string>,
  redirectUris: RedirectUriImport,
  oidcClients: OidcClientImport | undefined,
) {
  const typeId = org.type ? await store.upsertOrganisationType(tx, org.type) : null;
  const orgId = await store.upsertOrganisation(tx, {
    key: org.key,
    name: org.name,
    location: org.location ?? '',
    description: org.description ?? '',
    policyUrl: org.policyUrl ?? '',
    typeId,
    retentionEnabled: org.dataRetention?.enabled ?? false,
    retentionPeriodSeconds: (org.dataRetention?.periodDays ?? 0) * 86400,
  });
  const out: ImportResult['organisations'][string] = { id: orgId, purposes: {}, users: {} };
  for (const p of org.purposes ?? []) {
    const purposeId = await store.upsertPurpose(tx, {
      orgId,
      key: p.key,
      name: p.name,
      description: p.description ?? '',
      lawfulUsage: p.lawfulUsage ?? false,
      policyUrl: p.policyUrl ?? '',
    });
    const attributes: Record<string, string> = {};
    for (const a of p.attributes ?? [])
      attributes[a.key] = await store.upsertAttribute(tx, { orgId, purposeId, key: a.key, name: a.name });
    out.purposes[p.key] = { id: purposeId, attributes };
  }
  const upsert = (u: { username: string; name?: string; email?: string; phone?: string }) => {
    const username = normaliseUsername(u.username);
    return store.upsertUser(tx, {
      username,
      passwordHash: hashes.get(username)!,
      name: u.name,
      email: u.email,
      phone: u.phone,
    });
  };
  for (const a of org.admins ?? []) {
    const userId = await upsert(a);
    await store.setRoles(tx, userId, orgId, [...new Set(a.roles.map((r) => ROLE_BY_NAME[r]!))]);
    out.users[a.username] = userId;
  }
  for (const i of org.individuals ?? []) {
    const userId = await upsert(i);
    await store.subscribe(tx, userId, orgId);
    out.users[i.username] = userId;
  }
  if (org.redirectUris) await importRedirectUris(tx, orgId, org.redirectUris, redirectUris);
  if (org.oidcClients && oidcClients) out.oidcClients = await importOidcClients(tx, orgId, org, at, oidcClients);
  return out;
}

/**
 * Replaces an organisation's app redirect URIs with the file's, when they differ, and records the
 * change in the organisation audit log like the admin API's `PUT …/app-redirect-uris`
 * (docs/decisions/0013-federation-broker.md), with no user as its actor and `source: "import"`
 * (ASVS 5.0 V16.2.1: every change of a security setting is logged). An unchanged list writes
 * nothing, so a repeated import adds no entry.
 * @param uris - as the file lists them (already validated); duplicates are dropped.
 * @param redirectUris - federation's store of them.
 */
async function importRedirectUris(
  tx: Executor,
  orgId: string,
  uris: string[],
  redirectUris: RedirectUriImport,
): Promise<void> {
  const wanted = [...new Set(uris)];
  if (!(await redirectUris.replace(tx, orgId, wanted))) return;
  await recordAudit(tx, {
    orgId,
    actorUserId: null,
    actorApiKeyId: null,
    action: 'idp.app-redirect-uris.update',
    detail: { uris: wanted, source: 'import' },
  });
}

/**
 * Creates or updates the organisation's relying parties (upsert by `clientId`; clients not listed
 * are kept), recording each change in the organisation audit log like the admin API, with no user
 * as its actor and `source: "import"` (ASVS 5.0 V16.2.1). An unchanged client writes nothing, and
 * an existing client's secret is never rotated, so a repeated import adds nothing.
 * @param at - the organisation's JSON path, for a refusal's message.
 * @returns each `clientId` mapped to `{}`, or `{clientSecret}` for a confidential client created now.
 * @throws {ImportValidationError} when an entry would flip `public` of an existing client (nothing is written).
 */
async function importOidcClients(
  tx: Executor,
  orgId: string,
  org: ImportOrganisation,
  at: string,
  oidcClients: OidcClientImport,
): Promise<Record<string, { clientSecret?: string }>> {
  const out: Record<string, { clientSecret?: string }> = {};
  for (const [i, client] of org.oidcClients!.entries()) {
    const outcome = await oidcClients.upsert(tx, orgId, client);
    if (outcome.status === 'refused')
      throw new ImportValidationError([`${at}.oidcClients[${i}].public: ${outcome.problem}`]);
    out[client.clientId] =
      outcome.status === 'created' && outcome.clientSecret ? { clientSecret: outcome.clientSecret } : {};
    if (outcome.status === 'unchanged') continue;
    // The audit names the changed fields, never the secret's value.
    await recordAudit(tx, {
      orgId,
      actorUserId: null,
      actorApiKeyId: null,
      action: outcome.status === 'created' ? 'oidc-client.create' : 'oidc-client.update',
      detail: { clientId: client.clientId, fields: outcome.fields, source: 'import' },
    });
  }
  return out;
}

/**
 * Applies an import document.
 *
 * @param db - the database.
 * @param input - parsed JSON of the file.
 * @param params - argon2id parameters for new password hashes.
 * @param redirectUris - federation's side of the organisations' `redirectUris`: `redirectUriImport`
 *   of `federation/redirect-uris.ts`, passed in so that orgs does not depend on federation.
 * @param oidcClients - the OpenID provider's side of the organisations' `oidcClients`:
 *   `oidcClientImport` of `oidc/import.ts`, passed in for the same reason; when absent, a file
 *   listing `oidcClients` is refused.
 * @returns each key mapped to its ID (the output contract of docs/decisions/0004-organisations-as-code.md).
 * @throws {ImportValidationError} when the file is invalid; nothing is written then.
 */
export async function runImport(
  db: Db,
  input: unknown,
  params: Argon2Params,
  redirectUris: RedirectUriImport,
  oidcClients?: OidcClientImport,
): Promise<ImportResult> {
  const file = validateImportFile(input, redirectUris, oidcClients);
  const hashes = await resolveHashes(db, file, params);
  return db.transaction(async (tx) => {
    const result: ImportResult = { clients: {}, organisations: {} };
    for (const c of file.clients ?? []) result.clients[c.clientId] = await store.upsertClient(tx, c.clientId);
    for (const [o, org] of (file.organisations ?? []).entries())
      result.organisations[org.key] = await importOrganisation(
        tx as unknown as Db,
        org,
        `$.organisations[${o}]`,
        hashes,
        redirectUris,
        oidcClients,
      );
    return result;
  });
}
