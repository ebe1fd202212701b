/**
 * The storage adapter of an organisation's oidc-provider (docs/decisions/0017-wallet-sign-in-provider.md
 * "Adapter"): every model (Interaction, Session, Grant, AuthorizationCode, AccessToken…) is a row of
 * `oidc_provider_records` in Assent's database, so that every serving process answers the same flow;
 * the `Client` model is read from the registered relying parties (docs/wallet.md "Relying parties").
 */
import type { Adapter, AdapterFactory, AdapterPayload, ClientMetadata } from 'oidc-provider';
import type { Db } from '../../platform/db/open.js';
import type { RelyingParties, RelyingParty } from '../relying-parties/clients.js';
import * as store from './store.js';

/** Lifetime (seconds) of a row whose model oidc-provider gives none: one day. */
const DEFAULT_TTL = 86_400;

/**
 * The client metadata oidc-provider reads for a relying party (OpenID Connect Dynamic Client
 * Registration §2 names): confidential clients authenticate with `client_secret_basic` or
 * `client_secret_post` (RFC 6749 §2.3.1), public ones with `none` and PKCE S256 (RFC 7636); every
 * ID token is ES256 (Assent's key ring).
 * @param placeholderSecret - stands in for `client_secret`, which oidc-provider requires for a
 *   confidential client; the presented secret is checked by `RelyingParties.verifySecret` instead
 *   (only the SHA-256 of the real secret is stored). Unguessable, so nothing can be signed with it.
 */
export function clientMetadata(party: RelyingParty, placeholderSecret: string): ClientMetadata {
  return {
    client_id: party.clientId,
    client_name: party.name,
    redirect_uris: party.redirectUris,
    post_logout_redirect_uris: party.postLogoutRedirectUris,
    grant_types: ['authorization_code'],
    response_types: ['code'],
    id_token_signed_response_alg: 'ES256',
    ...(party.public
      ? { token_endpoint_auth_method: 'none' }
      : { token_endpoint_auth_method: 'client_secret_basic', client_secret: placeholderSecret }),
  };
}

/**
 * Builds the adapter factory of one organisation's provider.
 * @param orgId - the organisation: every row read or written is scoped to it, so a code of
 *   organisation A is unknown at organisation B (test/oidc-provider-flow.test.ts, "organisation
 *   A's code at organisation B is invalid_grant").
 * @param db - the database.
 * @param parties - the registered relying parties (the `Client` model).
 * @param placeholderSecret - see `clientMetadata`, per client.
 */
export function adapterFactory(
  orgId: string,
  db: Db,
  parties: RelyingParties,
  placeholderSecret: (clientId: string) => string,
): AdapterFactory {
  return (model: string): Adapter => (model === 'Client' ? clientAdapter() : recordAdapter(model));

  function clientAdapter(): Adapter {
    const readOnly = async () => {};
    return {
      async find(id) {
        const party = await parties.findClient(orgId, id);
        return party ? (clientMetadata(party, placeholderSecret(id)) as AdapterPayload) : undefined;
      },
      upsert: readOnly,
      findByUid: async () => undefined,
      findByUserCode: async () => undefined,
      consume: readOnly,
      destroy: readOnly,
      revokeByGrantId: readOnly,
    };
  }

  function recordAdapter(model: string): Adapter {
    const key = (id: string) => ({ orgId, model, id });
    // oidc-provider reads `consumed` from the payload to refuse a code used twice (RFC 6749 §4.1.2).
    const withConsumed = (found: store.RecordFound | null): AdapterPayload | undefined =>
      found
        ? ({
            ...found.payload,
            ...(found.consumedAt ? { consumed: Math.floor(found.consumedAt.getTime() / 1000) } : {}),
          } as AdapterPayload)
        : undefined;
    return {
      async upsert(id, payload, expiresIn) {
        const index = { grantId: payload.grantId, uid: payload.uid, userCode: payload.userCode };
        await store.upsertRecord(db, key(id), payload as Record<string, unknown>, expiresIn || DEFAULT_TTL, index);
      },
      find: async (id) => withConsumed(await store.findRecord(db, key(id))),
      findByUid: async (uid) => withConsumed(await store.findRecordBy(db, orgId, model, 'uid', uid)),
      findByUserCode: async (code) => withConsumed(await store.findRecordBy(db, orgId, model, 'userCode', code)),
      consume: (id) => store.consumeRecord(db, key(id)),
      destroy: (id) => store.destroyRecord(db, key(id)),
      revokeByGrantId: (grantId) => store.revokeGrant(db, orgId, grantId),
    };
  }
}
