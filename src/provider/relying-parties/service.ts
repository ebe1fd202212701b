/**
 * The rules of relying-party registration at an organisation's OpenID provider (docs/api.md "Authorization endpoint";
 * docs/wallet.md "Relying parties"; docs/decisions/0016-oidc-relying-parties.md): create, list,
 * read, update, rotate the secret, delete; each change with an entry in the organisation audit
 * log (actor, time, the changed fields; never the secret).
 */

import { auditActor, recordAudit } from '../../organisations/index.js';
import { Conflict, InvalidRequest, NotFound } from '../../platform/core/errors.js';
import type { Principal } from '../../platform/core/principal.js';
import type { Db, Executor } from '../../platform/db/open.js';
import {
  type ClientFields,
  changedFields,
  clientIdProblem,
  clientProblems,
  createdFields,
  isClientId,
  newClientId,
  newSecret,
} from './rules.js';
import * as store from './store.js';

/** A client as the admin API answers it: never the secret nor its hash. */
export interface ClientView {
  clientId: string;
  name: string;
  redirectUris: string[];
  postLogoutRedirectUris: string[];
  public: boolean;
  /** RFC 3339. */
  createdAt: string;
  /** RFC 3339. */
  updatedAt: string;
}

/** The body of a registration (`POST`): `clientId` generated when absent, `public` false when absent. */
export interface CreateInput {
  clientId?: string;
  name: string;
  redirectUris: string[];
  postLogoutRedirectUris?: string[];
  public?: boolean;
}

/** The body of an update (`PUT`): absent fields keep their value; `public` may only repeat the stored value. */
export interface UpdateInput {
  name?: string;
  redirectUris?: string[];
  postLogoutRedirectUris?: string[];
  public?: boolean;
}

/**
 * The answer body of a stored client.
 * @param row - the stored row.
 */
export function presentClient(row: store.ClientRow): ClientView {
  return {
    clientId: row.clientId,
    name: row.name,
    redirectUris: row.redirectUris,
    postLogoutRedirectUris: row.postLogoutRedirectUris,
    public: row.public,
    createdAt: row.createdAt.toISOString(),
    updatedAt: row.updatedAt.toISOString(),
  };
}

/**
 * Refuses an invalid registration.
 * @throws {InvalidRequest} naming every invalid field.
 */
function check(problems: string[]): void {
  if (problems.length > 0) throw new InvalidRequest(`Invalid OIDC client: ${problems.join('; ')}`);
}

const notFound = () => new NotFound('No such OIDC client in this organisation');

/** Registers organisations' relying parties (the admin API of docs/wallet.md "Relying parties"). */
export class OidcClientService {
  /** @param db - the database. */
  constructor(private readonly db: Db) {}

  private async audit(tx: Executor, orgId: string, actor: Principal, action: string, detail: Record<string, unknown>) {
    await recordAudit(tx, { orgId, ...auditActor(actor), action, detail });
  }

  /**
   * Registers a client: 201. A confidential client gets a generated secret, answered here once.
   * @returns the client, with `clientSecret` when it is confidential.
   * @throws {InvalidRequest} invalid fields. @throws {Conflict} when the organisation has that `clientId` already.
   */
  async create(actor: Principal, orgId: string, input: CreateInput): Promise<ClientView & { clientSecret?: string }> {
    const fields: ClientFields = {
      name: input.name,
      redirectUris: input.redirectUris,
      postLogoutRedirectUris: input.postLogoutRedirectUris ?? [],
      public: input.public ?? false,
    };
    const idProblem = input.clientId === undefined ? null : clientIdProblem(input.clientId);
    check([...(idProblem ? [`clientId: ${idProblem}`] : []), ...clientProblems(fields)]);
    const clientId = input.clientId ?? newClientId();
    const secret = fields.public ? null : newSecret();
    return this.db.transaction(async (tx) => {
      const row = await store.insertClient(tx, { orgId, clientId, ...fields, secretHash: secret?.hash ?? null });
      if (!row) throw new Conflict('This organisation has an OIDC client with that clientId already');
      // The audit names the secret's field, never its value.
      await this.audit(tx, orgId, actor, 'oidc-client.create', { clientId, fields: createdFields(fields.public) });
      return { ...presentClient(row), ...(secret ? { clientSecret: secret.secret } : {}) };
    });
  }

  /** The organisation's clients, by `clientId`, without secrets. */
  async list(orgId: string): Promise<ClientView[]> {
    return (await store.listClients(this.db, orgId)).map(presentClient);
  }

  /** @throws {NotFound} when the organisation has no such client. */
  async read(orgId: string, clientId: string): Promise<ClientView> {
    const row = isClientId(clientId) ? await store.findClient(this.db, orgId, clientId) : null;
    if (!row) throw notFound();
    return presentClient(row);
  }

  /**
   * Updates the name and URIs; absent fields keep their value. `public` cannot change: a client
   * turned public would lose its authentication silently, and one turned confidential would need a
   * secret its operator never received (docs/decisions/0016-oidc-relying-parties.md); delete it and
   * register it again instead.
   * @throws {NotFound} when the organisation has no such client.
   * @throws {InvalidRequest} invalid fields, or a `public` other than the stored one.
   */
  async update(actor: Principal, orgId: string, clientId: string, input: UpdateInput): Promise<ClientView> {
    if (!isClientId(clientId)) throw notFound();
    return this.db.transaction(async (tx) => {
      const stored = await store.findClient(tx, orgId, clientId);
      if (!stored) throw notFound();
      if (input.public !== undefined && input.public !== stored.public)
        throw new InvalidRequest(
          'Invalid OIDC client: public: cannot change; delete the client and register it again as ' +
            (input.public ? 'public' : 'confidential'),
        );
      const fields: ClientFields = {
        name: input.name ?? stored.name,
        redirectUris: input.redirectUris ?? stored.redirectUris,
        postLogoutRedirectUris: input.postLogoutRedirectUris ?? stored.postLogoutRedirectUris,
        public: stored.public,
      };
      check(clientProblems(fields));
      const changed = changedFields(fields, stored);
      if (changed.length === 0) return presentClient(stored);
      const row = await store.updateClient(tx, orgId, clientId, fields);
      if (!row) throw notFound();
      await this.audit(tx, orgId, actor, 'oidc-client.update', { clientId, fields: changed });
      return presentClient(row);
    });
  }

  /**
   * Replaces a confidential client's secret with a new generated one, answered here once; the old
   * secret stops working at once.
   * @throws {NotFound} when the organisation has no such client.
   * @throws {InvalidRequest} when the client is public (it has no secret).
   */
  async rotateSecret(
    actor: Principal,
    orgId: string,
    clientId: string,
  ): Promise<ClientView & { clientSecret: string }> {
    if (!isClientId(clientId)) throw notFound();
    const secret = newSecret();
    return this.db.transaction(async (tx) => {
      const row = await store.setSecretHash(tx, orgId, clientId, secret.hash);
      if (!row) {
        if (await store.findClient(tx, orgId, clientId))
          throw new InvalidRequest('A public OIDC client has no secret to rotate');
        throw notFound();
      }
      await this.audit(tx, orgId, actor, 'oidc-client.secret.rotate', { clientId, fields: ['clientSecret'] });
      return { ...presentClient(row), clientSecret: secret.secret };
    });
  }

  /** Deletes a client: 204. @throws {NotFound} when the organisation has no such client. */
  async remove(actor: Principal, orgId: string, clientId: string): Promise<void> {
    if (!isClientId(clientId)) throw notFound();
    await this.db.transaction(async (tx) => {
      if (!(await store.deleteClient(tx, orgId, clientId))) throw notFound();
      await this.audit(tx, orgId, actor, 'oidc-client.delete', { clientId });
    });
  }
}
