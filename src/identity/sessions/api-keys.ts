/**
 * The long-lived API key of the User record (`APIKey`, docs/api.md "Resources"): a JWT (RFC 7519) of type `api-key`,
 * stored sealed under the master key so that the same key is answered on every login until it
 * expires or is revoked (docs/identity.md "Identity", API keys).
 */
import type { Config } from '../../platform/config/load.js';
import { type MasterKey, SealError } from '../../platform/crypto/master-key.js';
import type { Db } from '../../platform/db/open.js';
import { InvalidTokenError, type Tokens, TokenType } from '../tokens/tokens.js';
import type { LivenessCache } from './liveness.js';
import * as store from './store.js';

/** The sealing purpose of stored API keys (`MasterKey.seal`). */
const API_KEY_PURPOSE = 'api-key';

/** Hands out, and revokes, users' API keys. */
export class ApiKeys {
  constructor(
    private readonly db: Db,
    private readonly config: Config,
    private readonly tokens: Tokens,
    private readonly master: MasterKey,
    /** Told of a revocation, so that the auth guard refuses the revoked keys at once. */
    private readonly liveness: LivenessCache,
  ) {}

  /**
   * The user's live API key, minted (360 days by default) when there is none or when this server
   * would refuse the stored one (`accepted`).
   * @param userId - the user.
   * @param liveSealed - the user's live key as stored (sealed), or null when there is none.
   * @returns the compact JWT.
   */
  async forUser(userId: string, liveSealed: string | null): Promise<string> {
    const { db, config, tokens, master } = this;
    const stored = liveSealed ? await this.accepted(liveSealed) : null;
    if (stored) return stored;
    const key = await tokens.sign(TokenType.apiKey, { sub: userId }, config.apiKeyTtl);
    await store.insertApiKey(db, {
      id: key.jti,
      userId,
      tokenSealed: master.seal(key.token, API_KEY_PURPOSE),
      expiresAt: new Date(key.exp * 1000),
    });
    return key.token;
  }

  /**
   * The stored API key when this server would accept it, else null: a key minted under another
   * `ASSENT_PUBLIC_URL` (its `iss`/`aud`), signed by a key no longer published, or sealed under
   * another master key is refused by the auth guard, so handing it out would give the user a key
   * that answers 401 (docs/identity.md "Identity", API keys). Such a key is left as it is: a process still
   * serving the old public URL accepts it until it expires or is revoked.
   * @param sealed - the newest live key of the user, sealed under the master key.
   */
  private async accepted(sealed: string): Promise<string | null> {
    try {
      const key = this.master.open(sealed, API_KEY_PURPOSE);
      await this.tokens.verify(key, TokenType.apiKey);
      return key;
    } catch (err) {
      if (err instanceof InvalidTokenError || err instanceof SealError) return null;
      throw err;
    }
  }

  /**
   * Revokes the user's API keys at once; the next login or `GET /user` hands out a new one.
   * @param userId - the signed-in user.
   */
  async revoke(userId: string): Promise<void> {
    await store.revokeApiKeys(this.db, userId);
    this.liveness.forgetUser(userId);
  }
}
