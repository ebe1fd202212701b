/**
 * Reads an external provider's endpoints from its discovery document (OpenID Connect Discovery 1.0
 * §4: `{issuer}/.well-known/openid-configuration`), on openid-client (panva), for the console's
 * IdP form (docs/federation.md "Configuration"). The request goes through the SSRF guard of
 * `src/platform/net/` like every request to a provider (only the issuer's host, every address checked, the
 * connection pinned, no redirect followed, 5 s, at most 1 MiB); the document's `issuer` must equal
 * the configured one (§4.3). The endpoints found are then validated like typed ones.
 */
import type * as oidc from 'openid-client';
import { InvalidRequest } from '../../platform/core/errors.js';
import { guardedFetch } from '../../platform/net/guarded-fetch.js';
import { OutboundError, type OutboundPolicy } from '../../platform/net/outbound.js';
import { loadOpenidClient } from './client.js';
import { type IdpInput, idpUrlProblem } from './config.js';

/** The endpoint fields of an IdP configuration that a discovery document gives. */
export type DiscoveredEndpoints = Required<
  Pick<IdpInput, 'authorizationUrl' | 'tokenUrl' | 'jwksUrl' | 'userInfoUrl' | 'logoutUrl'>
>;

/** Discovery request time limit (seconds), as every other request to a provider (docs/federation.md). */
const TIMEOUT_SECONDS = 5;

/**
 * Our words for why the document could not be used: a guard refusal or a network failure, never the
 * remote body. Threat: mapping Assent's network through the reason; only an authenticated Owner or
 * Admin reads it (as the webhook delivery log's errors), and the guard has refused internal addresses.
 */
function reason(err: unknown): string {
  for (let e: unknown = err, i = 0; e && i < 6; e = (e as { cause?: unknown }).cause, i++)
    if (e instanceof OutboundError) return e.message;
  const text = err instanceof Error ? err.message : '';
  if (/issuer/i.test(text)) return 'its issuer is not the one entered (OpenID Connect Discovery §4.3)';
  if (/status code|content-type|JSON|parsing/i.test(text)) return 'it did not answer a discovery document';
  return 'it gave an unusable answer';
}

/**
 * Fetches and checks the discovery document of `issuer`.
 * @param issuer - the issuer identifier as entered (already trimmed).
 * @param policy - the outbound policy (`ASSENT_FEDERATION_ALLOW_HTTP_HOSTS`, `ASSENT_DNS_SERVERS`).
 * @returns the five endpoints (`""` for an absent userinfo or end-session endpoint).
 * @throws {InvalidRequest} when the issuer is not an acceptable URL, the document cannot be fetched
 *   (refused address, timeout, network, bad status), names another issuer, or lacks an endpoint.
 */
export async function discoverEndpoints(issuer: string, policy: OutboundPolicy): Promise<DiscoveredEndpoints> {
  const problem = idpUrlProblem(issuer, policy.allowHttpHosts);
  if (problem) throw new InvalidRequest(`Invalid IdP configuration: issuer: ${problem}`);
  const lib = await loadOpenidClient();
  let meta: oidc.ServerMetadata;
  try {
    const config = await lib.discovery(new URL(issuer), 'discovery', undefined, lib.None(), {
      timeout: TIMEOUT_SECONDS,
      // Threat: SSRF through an admin-chosen issuer; the guard refuses internal addresses and pins the socket.
      [lib.customFetch]: (url, init) =>
        guardedFetch(url, init as Parameters<typeof guardedFetch>[1], {
          ...policy,
          timeoutMs: TIMEOUT_SECONDS * 1000,
        }),
      // Plain http only where the operator allowed it: idpUrlProblem refused it above otherwise.
      ...(issuer.startsWith('http:') ? { execute: [lib.allowInsecureRequests] } : {}),
    });
    meta = config.serverMetadata();
  } catch (err) {
    throw new InvalidRequest(`The discovery document of ${issuer} could not be used: ${reason(err)}`);
  }
  const str = (v: unknown) => (typeof v === 'string' ? v : '');
  const found = {
    authorizationUrl: str(meta.authorization_endpoint),
    tokenUrl: str(meta.token_endpoint),
    jwksUrl: str(meta.jwks_uri),
    userInfoUrl: str(meta.userinfo_endpoint),
    logoutUrl: str(meta.end_session_endpoint),
  };
  const missing = (['authorizationUrl', 'tokenUrl', 'jwksUrl'] as const).filter((k) => found[k] === '');
  if (missing.length > 0)
    throw new InvalidRequest(
      `The discovery document of ${issuer} names no ${missing.join(', ')} (OpenID Connect Discovery §3)`,
    );
  return found;
}
