/**
 * Sign-in to the privacy dashboard through an organisation's external OpenID provider (docs/web.md
 * "Sign-in"; docs/decisions/0013-federation-broker.md): the broker's flow (PKCE, state, nonce,
 * linking by issuer and `sub`), returning to the dashboard's own callback with a single-use Assent
 * code that is redeemed for the linked user's ID only. The flow is bound to the browser that began
 * it: a random binding value in a short-lived HttpOnly cookie, whose SHA-256 is the `state` the
 * broker hands back.
 */
import { randomBytes, timingSafeEqual } from 'node:crypto';
import { InvalidRequest } from '../../platform/core/errors.js';
import { sha256 } from '../../platform/crypto/digest.js';
import { isId } from '../../platform/util/ids.js';
import type { Broker } from './broker.js';
import type { Exchange } from './exchange.js';
import type { FederationConfigService } from './service.js';

/** The dashboard's callback path; the broker sends the browser there with `code` (or `error`) and `state`. */
export const DASHBOARD_IDP_CALLBACK_PATH = '/dashboard/sign-in/idp/callback';
/** Lifetime of the binding cookie (seconds): the broker's pending sign-in lives as long. */
export const BINDING_TTL_SECONDS = 600;

/** Where a started sign-in goes, and the binding value the browser keeps (its cookie). */
export interface FederatedStart {
  /** The provider's authorization URL. */
  location: string;
  /** The cookie's value: `{orgId}.{random}.{next}`; never shown anywhere but the cookie. */
  binding: string;
}

/** What the callback's query carries (the broker's redirect). */
export interface FederatedReturn {
  code?: string;
  state?: string;
  error?: string;
}

const ANOTHER_BROWSER = 'This sign-in was started in another browser or has expired. Start again.';

/** The `state` of a binding value: base64url SHA-256. */
const stateOf = (binding: string) => sha256(binding).toString('base64url');

/** The dashboard's sign-in through the organisation's external OpenID provider: one per process. */
export class FederatedWebSignIn {
  /**
   * @param configs - the organisations' provider settings.
   * @param broker - the authorize and callback steps.
   * @param exchange - redeems the Assent code.
   * @param publicUrl - `ASSENT_PUBLIC_URL`: the callback's origin.
   */
  constructor(
    private readonly configs: FederationConfigService,
    private readonly broker: Broker,
    private readonly exchange: Exchange,
    private readonly publicUrl: string,
  ) {}

  /** The dashboard's callback URI: `{PUBLIC_URL}/dashboard/sign-in/idp/callback`. */
  get callbackUri(): string {
    return `${this.publicUrl}${DASHBOARD_IDP_CALLBACK_PATH}`;
  }

  /**
   * The name to show on the organisation's "Sign in with …" button (its provider's issuer host),
   * or null when it has no provider (or the ID is malformed or unknown: no oracle beyond that).
   */
  async providerName(orgId: string): Promise<string | null> {
    const settings = isId(orgId) ? await this.configs.settings(orgId) : null;
    return settings ? new URL(settings.issuer).host : null;
  }

  /**
   * Starts a sign-in.
   * @param next - where to go once signed in (already checked by the page: a dashboard path).
   * @param ip - the client's address, for the broker's rate limit.
   * @throws {NotFound} no provider. @throws {RateLimited}
   */
  async start(orgId: string, next: string, ip: string): Promise<FederatedStart> {
    const binding = `${orgId}.${randomBytes(32).toString('base64url')}.${next}`;
    // Threat: login CSRF; only the browser holding the binding value can present the matching `state`.
    const location = await this.broker.authorizeAssentPage(orgId, this.callbackUri, stateOf(binding), ip);
    return { location, binding };
  }

  /**
   * Finishes a sign-in at the dashboard's callback: the binding cookie must be the one whose
   * SHA-256 is `state`, and the Assent code is redeemed once.
   * @param binding - the binding cookie's value, as sent.
   * @param ip - the client's address, for the exchange's throttle.
   * @returns the linked user's ID, and where to go (the `next` kept in the binding).
   * @throws {InvalidRequest} another browser, expired, the provider's refusal, or a used or unknown code.
   * @throws {RateLimited} while the IP is blocked.
   */
  async finish(
    binding: string | undefined,
    query: FederatedReturn,
    ip: string,
  ): Promise<{ userId: string; next: string }> {
    const first = binding?.indexOf('.') ?? -1;
    const second = first < 0 ? -1 : binding!.indexOf('.', first + 1);
    if (!binding || second < 0 || !query.state || !sameState(stateOf(binding), query.state))
      throw new InvalidRequest(ANOTHER_BROWSER, 'invalid_request');
    if (query.error) {
      const code = /^[a-z_]{1,40}$/.test(query.error) ? query.error : 'access_denied';
      throw new InvalidRequest(`The identity provider did not sign you in (${code}).`, 'access_denied');
    }
    if (!query.code) throw new InvalidRequest(ANOTHER_BROWSER, 'invalid_request');
    const orgId = binding.slice(0, first);
    const userId = await this.exchange.redeemForUser(orgId, this.callbackUri, query.code, ip);
    return { userId, next: binding.slice(second + 1) };
  }
}

/** Whether two base64url `state` values are equal, in constant time. */
function sameState(expected: string, sent: string): boolean {
  return expected.length === sent.length && timingSafeEqual(Buffer.from(expected), Buffer.from(sent));
}
