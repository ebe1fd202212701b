/**
 * The browser's side of a wallet sign-in, in one place for every wallet test (docs/api.md "Authorization endpoint";
 * docs/wallet.md "The sign-in page", "Development and tests"): a cookie-keeping user agent opens
 * the relying party's `/auth`, follows the 303 to the wallet page and reads its `data-deeplink`
 * (for the test wallet) and `data-status-url`; it then polls the status, completes (cross-device)
 * or follows the wallet's `redirect_uri` (same-device), and stops where it would leave for the
 * relying party.
 */
import * as oidc from 'openid-client';
import { Browser } from '../oidc.js';
import { fetchWithJar, followAuthToPage, parsePage, RP_CALLBACK } from '../provider.js';

/**
 * A stock openid-client relying party's authorization request (docs/api.md "Authorization endpoint"): `scope=openid`, a fresh
 * `state` and `nonce`, and PKCE S256 (RFC 7636), which the relying party keeps for its callback.
 * @param config - the relying party's configuration from discovery.
 * @param redirectUri - its registered redirect URI (default `RP_CALLBACK`).
 */
export async function authorizationRequest(config: oidc.Configuration, redirectUri = RP_CALLBACK) {
  const verifier = oidc.randomPKCECodeVerifier();
  const state = oidc.randomState();
  const nonce = oidc.randomNonce();
  const url = oidc.buildAuthorizationUrl(config, {
    redirect_uri: redirectUri,
    scope: 'openid',
    state,
    nonce,
    code_challenge: await oidc.calculatePKCECodeChallenge(verifier),
    code_challenge_method: 'S256',
  });
  return { url, verifier, state, nonce };
}

/** A sign-in begun at an organisation's provider, up to its wallet page. */
export interface BegunSignIn {
  /** The user agent holding the interaction cookies. */
  browser: Browser;
  /** The provider's issuer, `{publicUrl}/v3/service/extension/oidc/{orgId}`. */
  issuer: string;
  /** oidc-provider's interaction uid. */
  uid: string;
  pageUrl: string;
  /** The page's HTML. */
  html: string;
  /** The request for the wallet (the page's `data-deeplink`; the QR code's text). */
  deepLink: string;
  /** Absolute URL of the page's status endpoint. */
  statusUrl: string;
  /** The relying party's `state`. */
  state: string;
}

/** Valid `/auth` parameters of a confidential client without PKCE; `over` adds or replaces some. */
export function signInParams(clientId: string, over: Record<string, string> = {}): Record<string, string> {
  return {
    client_id: clientId,
    redirect_uri: RP_CALLBACK,
    response_type: 'code',
    scope: 'openid',
    state: `st-${Math.random().toString(36).slice(2)}`,
    nonce: `n-${Math.random().toString(36).slice(2)}`,
    ...over,
  };
}

/**
 * Opens `/auth` (or any authorization URL) in a user agent and follows the 303 to the wallet page.
 * @param auth - the authorization URL, e.g. openid-client's `buildAuthorizationUrl`.
 * @throws Error when `/auth` or the page does not answer as a wallet page.
 */
export async function beginSignIn(auth: string | URL, browser = new Browser()): Promise<BegunSignIn> {
  const url = new URL(auth);
  const issuer = url.href.slice(0, url.href.indexOf('/auth?'));
  const { uid, pageUrl, res: page } = await followAuthToPage(browser, url.href);
  const { deepLink, statusUrl } = parsePage(page.body);
  if (page.status !== 200 || !deepLink || !statusUrl) throw new Error(`the page answered ${page.status}: ${page.body}`);
  return {
    browser,
    issuer,
    uid,
    pageUrl,
    html: page.body,
    deepLink,
    statusUrl: new URL(statusUrl, pageUrl).href,
    state: url.searchParams.get('state') ?? '',
  };
}

/** What the page's status endpoint answers the browser: `{status, next?}` (never personal data). */
export async function pageStatus(b: BegunSignIn): Promise<{ status: string; next?: string }> {
  const res = await fetchWithJar(b.browser, b.statusUrl);
  if (res.status !== 200) throw new Error(`status answered ${res.status}: ${res.body}`);
  return JSON.parse(res.body);
}

/** The page's "new code": POST refresh, then the page again; the sign-in now carries the new deep link. */
export async function refreshSignIn(b: BegunSignIn): Promise<BegunSignIn> {
  const refreshed = await fetchWithJar(b.browser, `${b.issuer}/interaction/${b.uid}/refresh`, { method: 'POST' });
  if (refreshed.status !== 303) throw new Error(`refresh answered ${refreshed.status}`);
  const page = await fetchWithJar(b.browser, b.pageUrl);
  const deepLink = parsePage(page.body).deepLink;
  if (!deepLink) throw new Error(`the page answered ${page.status}`);
  return { ...b, html: page.body, deepLink };
}

/** The first step of ending a sign-in: `…/complete` (cross-device) or `…/wallet-return` (same-device). */
function endStep(b: BegunSignIn, responseCode?: string): string {
  return responseCode === undefined
    ? `${b.issuer}/interaction/${b.uid}/complete`
    : `${b.issuer}/interaction/${b.uid}/wallet-return?response_code=${encodeURIComponent(responseCode)}`;
}

/**
 * Tries to end the sign-in in its browser: cross-device (`GET …/complete`, what the page does once
 * the status says verified or failed) or, with `responseCode`, same-device (`…/wallet-return`, the
 * wallet's `redirect_uri`), following redirects until the browser would leave for the relying party.
 * @returns `rp`: the relying party's callback URL (not fetched) when the browser got there, else
 *   null; `status` and `body`: the last answer of the provider.
 */
export async function tryFinish(
  b: BegunSignIn,
  responseCode?: string,
): Promise<{ rp: URL | null; status: number; body: string }> {
  let next = endStep(b, responseCode);
  for (let i = 0; i < 10; i++) {
    if (next.startsWith(RP_CALLBACK)) return { rp: new URL(next), status: 303, body: '' };
    const res = await b.browser.request(next);
    if (!res.location) return { rp: null, status: res.status, body: res.body };
    next = res.location;
  }
  throw new Error('too many redirects');
}

/**
 * Ends the sign-in like `tryFinish` and insists on getting to the relying party.
 * @returns the relying party's callback URL, with `code` or `error`, `state` and `iss`.
 * @throws Error when the provider answered without sending the browser there (e.g. 409 before the wallet answered).
 */
export async function finishSignIn(b: BegunSignIn, responseCode?: string): Promise<URL> {
  const { rp, status, body } = await tryFinish(b, responseCode);
  if (!rp) throw new Error(`the sign-in did not reach the relying party: ${status} ${body.slice(0, 300)}`);
  return rp;
}
