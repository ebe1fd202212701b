/**
 * The relying-party side of one sign-in, on openid-client (panva) configured from the stored
 * endpoints (no discovery): the authorization URL (PKCE S256, state, nonce; RFC 7636, OpenID
 * Connect Core §3.1.2.1), the code exchange with client authentication (RFC 6749 §4.1.3), the ID
 * token validation (OpenID Connect Core §3.1.3.7: `iss`, `aud`, `exp`, `nonce`, and the signature
 * by `jwksUrl` when `validateSignature`), and userinfo (§5.3). Every request goes through the SSRF
 * guard with a 5 s limit; nothing the provider answers is shown to Assent's caller.
 */
import type * as oidc from 'openid-client';
import { guardedFetch } from '../../platform/net/guarded-fetch.js';
import { OutboundError, type OutboundPolicy } from '../../platform/net/outbound.js';
import type { IdpSettings } from './config.js';

/** Why a sign-in at the provider failed, in Assent's words (never the provider's body). */
export class FederationError extends Error {
  override name = 'FederationError';
  /**
   * @param kind - `invalid` (the answer failed validation), `refused` (the provider answered an
   *   OAuth error), `unreachable` (no usable answer: blocked address, timeout, network, bad status).
   * @param message - safe to show.
   */
  constructor(
    readonly kind: 'invalid' | 'refused' | 'unreachable',
    message: string,
  ) {
    super(message);
  }
}

/** What an unauthenticated caller is told when the provider cannot be reached, whatever the cause. */
export const UNREACHABLE_MESSAGE = 'The identity provider could not be reached; try again later';

/**
 * The message a federation failure may show to a caller who holds no credential (the callback's
 * browser, the code exchange). Threat: an anonymous caller mapping Assent's network (which names
 * resolve to internal addresses, TLS errors such as EPROTO; ASVS 5.0 V16.5.1): an `unreachable`
 * failure's detail goes only to `log`, the caller gets `UNREACHABLE_MESSAGE`. Validation and
 * refusal messages name the failed check, which tells nothing of the network, and are kept.
 * @param err - the failure.
 * @param log - where the detail of an unreachable provider is written (warn).
 * @param where - which step failed, for the log line.
 */
export function publicMessage(
  err: FederationError,
  log: { warn(obj: object, msg: string): void },
  where: string,
): string {
  if (err.kind !== 'unreachable') return err.message;
  log.warn({ detail: err.message }, `federation ${where}: identity provider unreachable`);
  return UNREACHABLE_MESSAGE;
}

/** What a successful code exchange yields. */
export interface SignInResult {
  /** The ID token's issuer (equal to the configured one) and subject. */
  issuer: string;
  subject: string;
  /** ID token claims, overlaid by userinfo claims unless userinfo is disabled. */
  claims: Record<string, unknown>;
  /** The compact ID token, for RP-initiated logout's `id_token_hint`. */
  idToken: string;
}

/** openid-client's module, as `import('openid-client')` resolves it. */
export type OpenidClient = typeof oidc;

/**
 * openid-client, loaded with the first sign-in, logout or discovery, not at start-up: a process that signs no one in
 * at a provider (the CLI) need not load it; then from the module cache.
 */
export function loadOpenidClient(): Promise<OpenidClient> {
  return import('openid-client');
}

/** Provider request time limit: openid-client's `timeout` is in seconds. */
const TIMEOUT_SECONDS = 5;

/**
 * Builds the openid-client configuration from the stored endpoints.
 * @param settings - the organisation's IdP settings.
 * @param policy - the outbound policy (allowed http hosts, DNS servers).
 */
export async function rpConfiguration(settings: IdpSettings, policy: OutboundPolicy): Promise<oidc.Configuration> {
  const lib = await loadOpenidClient();
  const server: oidc.ServerMetadata = {
    issuer: settings.issuer,
    authorization_endpoint: settings.authorizationUrl,
    token_endpoint: settings.tokenUrl,
    jwks_uri: settings.jwksUrl,
    ...(settings.userInfoUrl ? { userinfo_endpoint: settings.userInfoUrl } : {}),
    ...(settings.logoutUrl ? { end_session_endpoint: settings.logoutUrl } : {}),
  };
  // RFC 6749 §2.3.1: every authorization server supports HTTP Basic client authentication.
  const config = new lib.Configuration(
    server,
    settings.clientId,
    undefined,
    lib.ClientSecretBasic(settings.clientSecret),
  );
  config.timeout = TIMEOUT_SECONDS;
  // SSRF: every request (token, JWKS, userinfo) goes through the guard, never plain fetch.
  config[lib.customFetch] = (url, options) =>
    guardedFetch(url, options as Parameters<typeof guardedFetch>[1], { ...policy, timeoutMs: TIMEOUT_SECONDS * 1000 });
  // Plain http reaches only hosts the operator allowed (validated when the settings were saved).
  if ([settings.issuer, settings.tokenUrl, settings.jwksUrl, settings.userInfoUrl].some((u) => u.startsWith('http:')))
    lib.allowInsecureRequests(config);
  // A forged ID token must not pass: verify its signature against jwksUrl (OIDC Core §3.1.3.7 item 6).
  if (settings.validateSignature) lib.enableNonRepudiationChecks(config);
  return config;
}

/**
 * The provider's authorization URL for a fresh sign-in.
 * @param checks - `state`, `nonce` and the PKCE challenge (S256) of the pending sign-in.
 */
export async function authorizationUrl(
  config: oidc.Configuration,
  settings: IdpSettings,
  redirectUri: string,
  checks: { state: string; nonce: string; codeChallenge: string },
): Promise<URL> {
  return (await loadOpenidClient()).buildAuthorizationUrl(config, {
    redirect_uri: redirectUri,
    response_type: 'code',
    scope: settings.defaultScope,
    state: checks.state,
    nonce: checks.nonce,
    code_challenge: checks.codeChallenge,
    code_challenge_method: 'S256',
  });
}

function chain(err: unknown): unknown[] {
  const out: unknown[] = [];
  for (let e: unknown = err; e && out.length < 6; e = (e as { cause?: unknown }).cause) out.push(e);
  return out;
}

/** Why an ID token was refused, from the library's (fixed, non-remote) messages. */
function invalidReason(text: string): string {
  if (/"iss"|issuer/i.test(text)) return 'the ID token was issued by another issuer than the configured one';
  if (/"aud"|audience|azp/i.test(text)) return 'the ID token is not meant for this client (audience)';
  if (/"exp"|expir/i.test(text)) return 'the ID token has expired';
  if (/nonce/i.test(text)) return 'the ID token nonce is missing or does not match this sign-in';
  if (/alg/i.test(text)) return 'the ID token uses a signing algorithm that is not accepted';
  if (/signature|JWKS|key/i.test(text)) return 'the ID token signature does not verify against jwksUrl';
  if (/"sub"|subject/i.test(text)) return 'the userinfo subject does not match the ID token';
  if (/state/i.test(text)) return 'the state does not match this sign-in';
  return 'the identity provider answer failed validation';
}

/**
 * Maps any openid-client failure to a FederationError.
 * @param err - what the library threw.
 * @param step - which request, for the message (`token`, `userinfo`).
 * @param lib - openid-client's module (`loadOpenidClient`), whose error classes are recognised.
 */
export function toFederationError(err: unknown, step: string, lib: OpenidClient): FederationError {
  const causes = chain(err);
  const outbound = causes.find((e) => e instanceof OutboundError) as OutboundError | undefined;
  if (outbound)
    return new FederationError(
      'unreachable',
      `The identity provider could not be reached (${step}): ${outbound.message}`,
    );
  const timeout = causes.find((e) => e instanceof Error && (e.name === 'TimeoutError' || e.name === 'AbortError'));
  if (timeout)
    return new FederationError(
      'unreachable',
      `The identity provider did not answer within ${TIMEOUT_SECONDS} s (${step})`,
    );
  if (err instanceof lib.ResponseBodyError || err instanceof lib.AuthorizationResponseError) {
    // Only a well-formed RFC 6749 error code is repeated; the provider's description is not.
    const code = /^[a-z_]{1,40}$/.test(err.error) ? err.error : 'error';
    return new FederationError('refused', `The identity provider refused the request (${step}: ${code})`);
  }
  const text = causes
    .map((e) => (e instanceof Error ? `${e.message} ${(e as { code?: string }).code ?? ''}` : ''))
    .join(' | ');
  if (/unexpected HTTP response status code|unexpected response content-type|parsing error/i.test(text)) {
    return new FederationError('unreachable', `The identity provider gave an unusable answer (${step})`);
  }
  return new FederationError('invalid', `Sign-in refused: ${invalidReason(text)}`);
}

/**
 * Exchanges an authorization code and validates the result.
 *
 * @param callbackUrl - the redirect URI the code was issued to, with the authorization response's
 *   query (`code`, `state`, `iss`).
 * @param checks - the pending sign-in's PKCE verifier, state and nonce; all absent for a code the
 *   app obtained itself (then an ID token carrying a nonce is refused, OIDC Core §3.1.3.7 item 11).
 * @returns issuer, subject, claims and the compact ID token.
 * @throws {FederationError} on any failure.
 */
export async function exchangeCode(
  config: oidc.Configuration,
  settings: IdpSettings,
  callbackUrl: URL,
  checks: { verifier?: string; state?: string; nonce?: string },
): Promise<SignInResult> {
  const lib = await loadOpenidClient();
  let tokens: Awaited<ReturnType<typeof oidc.authorizationCodeGrant>>;
  try {
    tokens = await lib.authorizationCodeGrant(config, callbackUrl, {
      pkceCodeVerifier: checks.verifier,
      expectedState: checks.state ?? lib.skipStateCheck,
      expectedNonce: checks.nonce,
      idTokenExpected: true,
    });
  } catch (err) {
    throw toFederationError(err, 'token', lib);
  }
  const idClaims = tokens.claims();
  const idToken = tokens.id_token;
  if (!idClaims || !idToken)
    throw new FederationError('invalid', 'Sign-in refused: the identity provider sent no ID token');
  let claims: Record<string, unknown> = { ...idClaims };
  if (!settings.disableUserInfo) {
    try {
      const info = await lib.fetchUserInfo(config, tokens.access_token, idClaims.sub);
      // userinfo may add claims but never change who the user is (OIDC Core §5.3.2).
      claims = { ...claims, ...info, sub: idClaims.sub, iss: idClaims.iss };
    } catch (err) {
      throw toFederationError(err, 'userinfo', lib);
    }
  }
  return { issuer: idClaims.iss, subject: idClaims.sub, claims, idToken };
}
