/**
 * `assent import FILE`: creates or updates, idempotently by key, what an import file declares,
 * in one transaction, so a bad file writes nothing (docs/decisions/0004-organisations-as-code.md, "Import:
 * organisations as code").
 */
import type { ConsentHistoryImport, ImportedConsentHistory } from '../../consent/index.js';
import type { RedirectUriImport } from '../../federation/index.js';
import {
  hashPassword,
  needsRehash,
  normalisePassword,
  normaliseUsername,
  ROLE_BY_NAME,
  verifyPassword,
} from '../../identity/index.js';
import { applyStaffPolicy, auditChanges, recordAudit, subscribe } from '../../organisations/index.js';
import type { Argon2Params } from '../../platform/config/load.js';
import type { Db, Executor } from '../../platform/db/open.js';
import type { OidcClientImport, WalletSettingsImport } from '../../provider/index.js';
import { importCatalogue, imported } from './catalogue.js';
import type { ImportConsentEvent, ImportFile, ImportOrganisation, ImportResult } from './schema.js';
import * as store from './store.js';
import { ImportValidationError, validateImportFile } from './validate.js';

/** The file's validation (`validate.ts`), for callers of the import. */
export { ImportValidationError, validateImportFile };

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
  wallet: WalletSettingsImport | undefined,
  consentHistory: ConsentHistoryImport | undefined,
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
  if (org.staffMfaRequired !== undefined)
    await applyStaffPolicy(
      tx,
      { actorUserId: null, actorApiKeyId: null, source: 'import' },
      orgId,
      org.staffMfaRequired,
    );
  const purposes = await importCatalogue(tx, orgId, org.purposes ?? []);
  const out: ImportResult['organisations'][string] = { id: orgId, purposes, users: {} };
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
    const roles = [...new Set(a.roles.map((r) => ROLE_BY_NAME[r]!))].sort((x, y) => x - y);
    const before = await store.setRoles(tx, userId, orgId, roles);
    const changes = auditChanges({ roles: before }, { roles });
    if (Object.keys(changes).length > 0)
      await imported(tx, orgId, 'staff.roles.update', 'staff', userId, { changes, detail: { username: a.username } });
    out.users[a.username] = userId;
  }
  const histories: ImportedConsentHistory[] = [];
  for (const [n, i] of (org.individuals ?? []).entries()) {
    const userId = await upsert(i);
    const { consentId, subscribed } = await subscribe(tx, userId, orgId);
    if (subscribed)
      await imported(tx, orgId, 'individual.add', 'individual', userId, {
        changes: {},
        detail: { username: i.username },
      });
    out.users[i.username] = userId;
    if (i.consentHistory)
      histories.push(
        historyOf(org, out, `${at}.individuals[${n}].consentHistory`, consentId, userId, i.consentHistory),
      );
  }
  if (histories.length > 0 && consentHistory) {
    const outcome = await consentHistory.record(tx, orgId, histories);
    if (outcome.status === 'refused') throw new ImportValidationError(outcome.problems);
    out.consentHistory = { recorded: outcome.recorded, skipped: outcome.skipped };
  }
  if (org.redirectUris) await importRedirectUris(tx, orgId, org.redirectUris, redirectUris);
  if (org.oidcClients && oidcClients) out.oidcClients = await importOidcClients(tx, orgId, org, at, oidcClients);
  if (org.wallet && wallet) out.wallet = await importWallet(tx, orgId, org, at, wallet);
  return out;
}

/**
 * An individual's `consentHistory` with the purposes and data attributes resolved to the IDs this
 * import gave them (the validation checked that the organisation declares them).
 */
function historyOf(
  org: ImportOrganisation,
  out: ImportResult['organisations'][string],
  path: string,
  recordId: string,
  userId: string,
  events: ImportConsentEvent[],
): ImportedConsentHistory {
  return {
    recordId,
    userId,
    path,
    events: events.map((e) => ({
      purposeId: out.purposes[e.purpose]!.id,
      attributeId: out.purposes[e.purpose]!.attributes[e.attribute]!,
      lawfulUsage: org.purposes!.find((p) => p.key === e.purpose)!.lawfulUsage ?? false,
      value: e.value,
      days: e.days ?? 0,
      at: e.at,
      by: e.by,
      channel: e.channel,
    })),
  };
}

/**
 * Creates or replaces the organisation's wallet settings, recording a change in the organisation
 * audit log like the admin API (`wallet.settings.update`, the names of the changed fields), with no
 * user as its actor and `source: "import"` (ASVS 5.0 V16.2.1). Unchanged settings write nothing.
 * @throws {ImportValidationError} when the settings are invalid against the stored ones (nothing is written).
 */
async function importWallet(
  tx: Executor,
  orgId: string,
  org: ImportOrganisation,
  at: string,
  wallet: WalletSettingsImport,
): Promise<{ verifierClientId: string }> {
  const outcome = await wallet.upsert(tx, orgId, org.wallet!);
  if (outcome.status === 'refused') throw new ImportValidationError(outcome.problems.map((p) => `${at}.wallet.${p}`));
  if (outcome.status !== 'unchanged')
    await recordAudit(tx, {
      orgId,
      actorUserId: null,
      actorApiKeyId: null,
      action: 'wallet.settings.update',
      detail: { fields: outcome.fields, source: 'import' },
      source: 'import',
    });
  return { verifierClientId: outcome.verifierClientId };
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
    source: 'import',
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
      source: 'import',
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
 *   of `federation/openid/redirect-uris.ts`, passed in so that orgs does not depend on federation.
 * @param oidcClients - the OpenID provider's side of the organisations' `oidcClients`:
 *   `oidcClientImport` of `provider/relying-parties/import.ts`, passed in for the same reason; when absent, a file
 *   listing `oidcClients` is refused.
 * @param wallet - wallet sign-in's side of the organisations' `wallet` settings
 *   (`walletSettingsImport` of `provider/wallet/import.ts`), passed in for the same reason; when absent, a
 *   file listing `wallet` is refused.
 * @param consentHistory - the consent domain's side of the individuals' `consentHistory`
 *   (`consentHistoryImport` of `consent/transfer/import.ts`), passed in for the same reason; when absent, a
 *   file listing one is refused. The recorded events are sealed into the chain after the commit.
 * @returns each key mapped to its ID (the output contract of docs/decisions/0004-organisations-as-code.md).
 * @throws {ImportValidationError} when the file is invalid; nothing is written then.
 */
export async function runImport(
  db: Db,
  input: unknown,
  params: Argon2Params,
  redirectUris: RedirectUriImport,
  oidcClients?: OidcClientImport,
  wallet?: WalletSettingsImport,
  consentHistory?: ConsentHistoryImport,
): Promise<ImportResult> {
  const file = validateImportFile(input, redirectUris, oidcClients, wallet, consentHistory);
  const hashes = await resolveHashes(db, file, params);
  const result = await db.transaction(async (tx) => {
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
        wallet,
        consentHistory,
      );
    return result;
  });
  for (const org of Object.values(result.organisations))
    if (org.consentHistory?.recorded) await consentHistory!.seal(db, org.id);
  return result;
}
