/**
 * What the OpenID provider of an organisation (docs/api.md "Authorization endpoint"; docs/wallet.md) asks of its registered
 * relying parties: a client by `client_id`, and whether a presented client secret is its secret
 * (client_secret_basic / client_secret_post, RFC 6749 §2.3.1; OpenID Connect Core §9). Read-only:
 * registration goes through `OidcClientService`.
 */
import type { Db } from '../../platform/db/open.js';
import { isId } from '../../platform/util/ids.js';
import { isClientId, secretMatches } from './rules.js';
import * as store from './store.js';

/** A registered relying party as the provider sees it; the secret is never part of it. */
export interface RelyingParty {
  orgId: string;
  clientId: string;
  /** Shown to the individual on the sign-in page. */
  name: string;
  /** Exact strings; an authorization request's `redirect_uri` must equal one (RFC 9700 §4.1.3). */
  redirectUris: string[];
  /** Exact strings for RP-initiated logout's `post_logout_redirect_uri` (OpenID Connect RP-Initiated Logout §2). */
  postLogoutRedirectUris: string[];
  /** Public: no secret, token endpoint auth method `none`, PKCE S256 required (RFC 7636; RFC 9700 §2.1.1). */
  public: boolean;
}

/** The relying parties of every organisation, for the provider. */
export interface RelyingParties {
  /**
   * The client, or null when the organisation has no client of that ID (a malformed ID included).
   * @param orgId - the organisation (a UUID).
   * @param clientId - the `client_id` the request names.
   */
  findClient(orgId: string, clientId: string): Promise<RelyingParty | null>;
  /**
   * Whether `presented` is the secret of the confidential client, compared in constant time
   * against the stored SHA-256 (docs/decisions/0016-oidc-relying-parties.md). False for a public
   * client, an unknown client, or a wrong secret.
   */
  verifySecret(orgId: string, clientId: string, presented: string): Promise<boolean>;
}

/** The relying parties, read from the database (`createContext` builds it as `ctx.oidc.relyingParties`). */
export class RelyingPartyRegistry implements RelyingParties {
  /** @param db - the database. */
  constructor(private readonly db: Db) {}

  async findClient(orgId: string, clientId: string): Promise<RelyingParty | null> {
    if (!isId(orgId) || !isClientId(clientId)) return null;
    const row = await store.findClient(this.db, orgId, clientId);
    if (!row) return null;
    const { secretHash: _hash, createdAt: _c, updatedAt: _u, ...party } = row;
    return party;
  }

  async verifySecret(orgId: string, clientId: string, presented: string): Promise<boolean> {
    if (!isId(orgId) || !isClientId(clientId)) return false;
    const row = await store.findClient(this.db, orgId, clientId);
    return row?.secretHash ? secretMatches(row.secretHash, presented) : false;
  }
}
