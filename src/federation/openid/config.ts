/**
 * The External IdP configuration of docs/api.md "Resources": its HTTP shape
 * and its validation. The eleven fields are the configuration keys Keycloak uses for an OIDC
 * identity provider. Saving a configuration never contacts the provider.
 */
import { type Static, Type } from 'typebox';
import { InvalidRequest } from '../../platform/core/errors.js';
import { urlProblem } from '../../platform/net/outbound.js';

const UrlField = Type.String({ maxLength: 2000 });

/** The request body of POST and PUT; on PUT every field is optional and absent ones keep their value. */
export const IdpInput = Type.Object({
  authorizationUrl: Type.Optional(UrlField),
  tokenUrl: Type.Optional(UrlField),
  logoutUrl: Type.Optional(Type.String({ maxLength: 2000, description: 'RP-initiated logout endpoint; "" for none' })),
  clientId: Type.Optional(Type.String({ minLength: 1, maxLength: 500 })),
  clientSecret: Type.Optional(
    Type.String({ minLength: 1, maxLength: 2000, description: 'write-only: never answered' }),
  ),
  jwksUrl: Type.Optional(UrlField),
  userInfoUrl: Type.Optional(Type.String({ maxLength: 2000, description: '"" allowed when disableUserInfo' })),
  validateSignature: Type.Optional(
    Type.Boolean({ description: 'verify the ID token signature by jwksUrl; default true' }),
  ),
  disableUserInfo: Type.Optional(
    Type.Boolean({ description: 'take the claims from the ID token only; default false' }),
  ),
  issuer: Type.Optional(UrlField),
  defaultScope: Type.Optional(
    Type.String({ minLength: 1, maxLength: 1000, description: 'space-separated; must include `openid`' }),
  ),
});
/** A POST or PUT body. */
export type IdpInput = Static<typeof IdpInput>;

/** The answer of GET, POST and PUT: the configuration without `clientSecret`, which is write-only. */
export const IdpBody = Type.Object({
  authorizationUrl: Type.String(),
  tokenUrl: Type.String(),
  logoutUrl: Type.String(),
  clientId: Type.String(),
  jwksUrl: Type.String(),
  userInfoUrl: Type.String(),
  validateSignature: Type.Boolean(),
  disableUserInfo: Type.Boolean(),
  issuer: Type.String(),
  defaultScope: Type.String(),
});

/** A complete configuration, as stored (the secret in clear only in memory). */
export interface IdpSettings {
  authorizationUrl: string;
  tokenUrl: string;
  logoutUrl: string;
  clientId: string;
  clientSecret: string;
  jwksUrl: string;
  userInfoUrl: string;
  validateSignature: boolean;
  disableUserInfo: boolean;
  issuer: string;
  defaultScope: string;
}

/** Every field of `IdpSettings`, in the order the External IdP configuration of docs/api.md "Resources" lists them. */
export const IDP_FIELDS = [
  'authorizationUrl',
  'tokenUrl',
  'logoutUrl',
  'clientId',
  'clientSecret',
  'jwksUrl',
  'userInfoUrl',
  'validateSignature',
  'disableUserInfo',
  'issuer',
  'defaultScope',
] as const satisfies readonly (keyof IdpSettings)[];

/** The string fields of `IdpSettings`, each required in a complete configuration. */
const STRING_FIELDS = IDP_FIELDS.filter((f) => f !== 'validateSignature' && f !== 'disableUserInfo');

/** The fields that hold URLs, and whether "" is allowed for each. */
const URL_FIELDS = [
  ['authorizationUrl', false],
  ['tokenUrl', false],
  ['logoutUrl', true],
  ['jwksUrl', false],
  ['userInfoUrl', true],
  ['issuer', false],
] as const;

/**
 * Why `raw` may not be an IdP URL, or null. Absolute `https` only, or `http` for an allowed host;
 * no credentials, no fragment; a literal IP must be public unless allowed (SSRF, ASVS 5.0 V1.3.6;
 * OpenID Connect Discovery §3 for the issuer's form).
 * @param raw - the URL as sent.
 * @param allowHttpHosts - `ASSENT_FEDERATION_ALLOW_HTTP_HOSTS`, lower case.
 */
export function idpUrlProblem(raw: string, allowHttpHosts: readonly string[]): string | null {
  const problem = urlProblem(raw, { allowHttpHosts });
  if (problem) return problem;
  // The issuer is compared with `iss` as a string; a fragment has no place in any endpoint either.
  return new URL(raw).hash ? 'must not have a fragment' : null;
}

/**
 * Merges a POST or PUT body onto the stored settings (PUT: absent fields keep their value, so a
 * PUT without `clientSecret` keeps the stored secret) and validates the result.
 *
 * @param input - the body.
 * @param stored - the current settings (PUT), or null (POST: every field but the two booleans is required).
 * @param allowHttpHosts - `ASSENT_FEDERATION_ALLOW_HTTP_HOSTS`.
 * @returns the complete settings; `validateSignature` defaults to true and `disableUserInfo` to false.
 * @throws {InvalidRequest} naming every field that is missing or invalid.
 */
export function mergeSettings(
  input: IdpInput,
  stored: IdpSettings | null,
  allowHttpHosts: readonly string[],
): IdpSettings {
  const base: Partial<IdpSettings> = stored ?? { validateSignature: true, disableUserInfo: false };
  const merged = { ...base } as Record<string, unknown>;
  for (const [key, value] of Object.entries(input))
    if (value !== undefined) merged[key] = typeof value === 'string' ? value.trim() : value;
  const problems: string[] = [];
  for (const key of STRING_FIELDS) {
    if (typeof merged[key] !== 'string') problems.push(`${key}: required`);
  }
  for (const [key, emptyOk] of URL_FIELDS) {
    const value = merged[key];
    if (typeof value !== 'string' || (value === '' && emptyOk)) continue;
    const problem = idpUrlProblem(value, allowHttpHosts);
    if (problem) problems.push(`${key}: ${problem}`);
  }
  if (typeof merged.issuer === 'string' && merged.issuer.includes('?'))
    problems.push('issuer: must not have a query (OpenID Connect Discovery §3)');
  if (typeof merged.defaultScope === 'string' && !merged.defaultScope.split(/\s+/).includes('openid'))
    problems.push('defaultScope: must include openid (OpenID Connect Core §3.1.2.1)');
  if (merged.userInfoUrl === '' && merged.disableUserInfo !== true)
    problems.push('userInfoUrl: required unless disableUserInfo is true');
  if (merged.clientId === '' || merged.clientSecret === '')
    problems.push('clientId and clientSecret: must not be empty');
  if (problems.length > 0) throw new InvalidRequest(`Invalid IdP configuration: ${problems.join('; ')}`);
  return merged as unknown as IdpSettings;
}

/**
 * The answer body: every field but `clientSecret` (write-only, docs/decisions/0013-federation-broker.md).
 * @param settings - the stored settings.
 */
export function presentSettings(settings: IdpSettings): Static<typeof IdpBody> {
  const { clientSecret: _secret, ...shown } = settings;
  return shown;
}
