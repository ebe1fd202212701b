/**
 * App redirect URIs: where a finished sign-in may send the browser back to. Only registered URIs,
 * matched exactly (RFC 9700 §4.1.3; RFC 6749 §3.1.2), so a sign-in cannot be redirected to an
 * attacker's page with a code in its URL (open redirector, RFC 9700 §4.11).
 */

/** Most URIs one organisation may register (count). */
export const MAX_REDIRECT_URIS = 50;

const LOOPBACK = new Set(['127.0.0.1', 'localhost', '[::1]']);

/**
 * Why `raw` may not be registered, or null. `https` URLs; `http` only at loopback (native apps,
 * RFC 8252 §7.3) or at a host in `ASSENT_FEDERATION_ALLOW_HTTP_HOSTS`; private-use schemes with a
 * dot (RFC 8252 §7.1, e.g. `com.example.app:/cb`). Never a fragment (RFC 6749 §3.1.2).
 * @param raw - the URI.
 * @param allowHttpHosts - hosts allowed over http.
 */
export function redirectUriProblem(raw: string, allowHttpHosts: readonly string[]): string | null {
  if (raw.length > 2000) return 'longer than 2000 characters';
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return 'must be an absolute URI';
  }
  if (url.hash || raw.includes('#')) return 'must not have a fragment';
  if (url.username || url.password) return 'must not carry credentials';
  if (url.protocol === 'https:') return null;
  if (url.protocol === 'http:') return LOOPBACK.has(url.hostname) || allowHttpHosts.includes(url.hostname.toLowerCase()) ? null : 'http is allowed only at loopback or an allowed host';
  // javascript:, data: and the like have no dot; a private-use scheme is a reversed domain name.
  return /^[a-z][a-z0-9+-]*(\.[a-z0-9+-]+)+:$/.test(url.protocol) ? null : 'must be https, loopback http, or a private-use scheme such as com.example.app:';
}
