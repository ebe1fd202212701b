/**
 * Assent as a SAML 2.0 service provider on `@node-saml/node-saml` (docs/decisions/0022-saml-federation.md):
 * one instance per message, configured from the organisation's settings, Assent's SP endpoints and
 * key, and a request-ID cache kept in the database, so that the response to a request sent by one
 * replica is accepted by another.
 */
import type { CacheProvider, SAML } from '@node-saml/node-saml';
import type { Db } from '../../platform/db/open.js';
import type { SamlSettings, SpEndpoints } from './config.js';
import type { SpKey } from './sp-keys.js';
import * as store from './store.js';

/**
 * node-saml, loaded with the first SAML message or SP metadata, not at start-up: a process that handles none (the
 * CLI) need not load it and its XML signature and encryption stack; then from the module cache.
 */
export function loadNodeSaml(): Promise<typeof import('@node-saml/node-saml')> {
  return import('@node-saml/node-saml');
}

/** Largest clock difference accepted on NotBefore and NotOnOrAfter (milliseconds), unless `SpOptions.clockSkewMs` says otherwise. */
export const CLOCK_SKEW_MS = 60_000;
/** How long a sent request's ID is accepted in a response (milliseconds): the user's time at the IdP. */
export const REQUEST_TTL_MS = 600_000;

/**
 * node-saml's request-ID cache in the `saml_requests` table. node-saml stores each request ID it
 * sends, looks up a response's `InResponseTo`, and removes it once the response is handled, so an
 * ID answers one response only.
 */
export class DbRequestCache implements CacheProvider {
  /** @param kind - what the requests sent through this cache are: AuthnRequests or LogoutRequests. */
  constructor(
    private readonly db: Db,
    private readonly kind: store.RequestKind = 'authn',
  ) {}

  /** Stores `key` (a request ID); `value` is its IssueInstant. */
  async saveAsync(key: string, value: string) {
    await store.saveRequest(this.db, key, new Date(Date.now() + REQUEST_TTL_MS), this.kind);
    return { value, createdAt: Date.now() };
  }

  /** The time the request was sent (ISO 8601; node-saml compares it with the TTL), or null. */
  async getAsync(key: string): Promise<string | null> {
    return (await store.hasRequest(this.db, key, this.kind)) ? new Date().toISOString() : null;
  }

  /** Forgets `key`. */
  async removeAsync(key: string | null): Promise<string | null> {
    if (!key) return null;
    return (await store.removeRequest(this.db, key)) ? key : null;
  }
}

/** What differs between the messages one SP instance handles. */
export interface SpOptions {
  /** Sign the messages sent (AuthnRequest per `signAuthnRequests`; LogoutRequests always). */
  sign: boolean;
  /** The ID of the request to send (the pending sign-in keeps it to match `InResponseTo`). */
  requestId?: string;
  /** Accept a response without `InResponseTo` (IdP-initiated, when the organisation allows it). */
  unsolicited?: boolean;
  /** Largest clock difference accepted (milliseconds; `ASSENT_SAML_CLOCK_SKEW_SECONDS`); `CLOCK_SKEW_MS` when absent. */
  clockSkewMs?: number;
  /** The signatures the Response carries (`response-inspect.ts`): each present one must verify. */
  signed?: { response: boolean; assertion: boolean };
  /** The private key (PEM) that decrypts the Response's EncryptedAssertion. */
  decryptionKey?: string;
}

/**
 * A node-saml instance for one organisation.
 * Checks it makes (SAML 2.0 Core §2.5, §3.2.2; Profiles §4.1.4.3): a signature by a configured
 * certificate on the Response or on the Assertion (either suffices; none is refused; each one
 * present, per `options.signed`, must verify), the
 * Response's and the Assertion's Issuer equal to the IdP's entity ID, the Audience equal to
 * Assent's entity ID, NotBefore/NotOnOrAfter with the clock skew, `InResponseTo` a request
 * Assent sent (always, unless `unsolicited`), and a single assertion.
 */
export async function serviceProvider(
  settings: SamlSettings,
  sp: SpEndpoints,
  key: SpKey,
  cache: CacheProvider,
  options: SpOptions,
): Promise<SAML> {
  const { SAML, ValidateInResponseTo } = await loadNodeSaml();
  return new SAML({
    issuer: sp.spEntityId,
    audience: sp.spEntityId,
    callbackUrl: sp.acsUrl,
    logoutCallbackUrl: sp.spSloUrl,
    entryPoint: settings.ssoUrl,
    logoutUrl: settings.sloUrl || settings.ssoUrl,
    idpIssuer: settings.entityId,
    idpCert: settings.signingCertificates,
    identifierFormat: settings.nameIdFormat,
    allowCreate: true,
    disableRequestedAuthnContext: true,
    // Threat: a forged or altered assertion; signed by the IdP's configured key, on the Response or the Assertion.
    // Threat: an invalid signature beside a valid one (node-saml accepts either): every signature present must verify.
    wantAssertionsSigned: options.signed?.assertion ?? false,
    wantAuthnResponseSigned: options.signed?.response ?? false,
    acceptedClockSkewMs: options.clockSkewMs ?? CLOCK_SKEW_MS,
    ...(options.decryptionKey ? { decryptionPvk: options.decryptionKey } : {}),
    // Threat: unsolicited or cross-session responses (login CSRF); InResponseTo must name a request Assent sent.
    validateInResponseTo: options.unsolicited ? ValidateInResponseTo.ifPresent : ValidateInResponseTo.always,
    requestIdExpirationPeriodMs: REQUEST_TTL_MS,
    cacheProvider: cache,
    ...(options.requestId ? { generateUniqueId: () => options.requestId! } : {}),
    ...(options.sign ? { privateKey: key.privateKey, signatureAlgorithm: 'sha256' as const } : {}),
    publicCert: key.certificate,
  });
}
