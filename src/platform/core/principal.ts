/**
 * The authenticated caller of an API operation, as the auth guard resolves it from the Authorization header
 * (docs/api.md "Authentication") and the services receive it.
 */

/** The authenticated caller. */
export interface Principal {
  /** The user's ID (`sub`). */
  userId: string;
  /** Which credential was presented. */
  via: 'access' | 'apiKey';
  /** Token family of an access token. */
  familyId?: string;
  /** `jti` of an API key (the api_keys row). */
  apiKeyId?: string;
}
