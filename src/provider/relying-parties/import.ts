/**
 * What `assent import` asks of the OpenID provider's domain for an organisation's `oidcClients`
 * (docs/decisions/0004-organisations-as-code.md; docs/decisions/0016-oidc-relying-parties.md). Its
 * caller hands `oidcClientImport` to the import (`app/organisations-as-code/import.ts`), which imports only these types:
 * orgs does not depend on oidc, which depends on orgs (docs/development.md, code layout).
 */
import type { Executor } from '../../platform/db/open.js';
import { changedFields, clientIdProblem, clientProblems, createdFields, newSecret } from './rules.js';
import * as store from './store.js';

/** One `oidcClients` entry of an import file (its schema checked by `app/organisations-as-code/schema.ts`). */
export interface ImportedClient {
  clientId: string;
  name: string;
  redirectUris: string[];
  postLogoutRedirectUris?: string[];
  public: boolean;
}

/** What an import did to one client; `fields` name what changed (for the audit log, never a value). */
export type ImportedClientOutcome =
  | { status: 'created'; fields: string[]; clientSecret?: string }
  | { status: 'updated'; fields: string[] }
  | { status: 'unchanged' }
  | { status: 'refused'; problem: string };

/** The OpenID provider's side of the import of relying parties. */
export interface OidcClientImport {
  /**
   * Every problem of an entry, each as `field: problem`: the rule of the admin API
   * (`rules.ts`), so a file cannot register what the API would refuse.
   */
  problems(client: ImportedClient): string[];
  /**
   * Creates the client, or updates its name and URIs when they differ (upsert by `clientId`).
   * A new confidential client gets a generated secret, returned here once; an existing client's
   * secret is never touched, so a repeated import keeps working credentials.
   * @param tx - the import's transaction, so that a bad file writes nothing.
   * @param client - a valid entry (see `problems`).
   * @returns `refused` when the entry would flip `public` of an existing client (as the admin API refuses).
   */
  upsert(tx: Executor, orgId: string, client: ImportedClient): Promise<ImportedClientOutcome>;
}

/** The OpenID provider's side of the import (see `OidcClientImport`). */
export const oidcClientImport: OidcClientImport = {
  problems(client) {
    const idProblem = clientIdProblem(client.clientId);
    return [
      ...(idProblem ? [`clientId: ${idProblem}`] : []),
      ...clientProblems({ ...client, postLogoutRedirectUris: client.postLogoutRedirectUris ?? [] }),
    ];
  },
  async upsert(tx, orgId, client) {
    const fields = {
      name: client.name,
      redirectUris: client.redirectUris,
      postLogoutRedirectUris: client.postLogoutRedirectUris ?? [],
    };
    const stored = await store.findClient(tx, orgId, client.clientId);
    if (!stored) {
      const secret = client.public ? null : newSecret();
      await store.insertClient(tx, {
        orgId,
        clientId: client.clientId,
        ...fields,
        public: client.public,
        secretHash: secret?.hash ?? null,
      });
      const created = createdFields(client.public);
      return secret
        ? { status: 'created', fields: created, clientSecret: secret.secret }
        : { status: 'created', fields: created };
    }
    if (stored.public !== client.public)
      return { status: 'refused', problem: 'cannot change for an existing client; delete it and import it again' };
    const changed = changedFields(fields, stored);
    if (changed.length === 0) return { status: 'unchanged' };
    await store.updateClient(tx, orgId, client.clientId, fields);
    return { status: 'updated', fields: changed };
  },
};
