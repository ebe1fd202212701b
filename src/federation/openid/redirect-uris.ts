/**
 * App redirect URIs: where a finished sign-in may send the browser back to. Only registered URIs,
 * matched exactly (RFC 9700 §4.1.3; RFC 6749 §3.1.2), so a sign-in cannot be redirected to an
 * attacker's page with a code in its URL (open redirector, RFC 9700 §4.11).
 */
import type { Executor } from '../../platform/db/open.js';
import * as store from './store.js';

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
  if (url.protocol === 'http:')
    return LOOPBACK.has(url.hostname) || allowHttpHosts.includes(url.hostname.toLowerCase())
      ? null
      : 'http is allowed only at loopback or an allowed host';
  // javascript:, data: and the like have no dot; a private-use scheme is a reversed domain name.
  return /^[a-z][a-z0-9+-]*(\.[a-z0-9+-]+)+:$/.test(url.protocol)
    ? null
    : 'must be https, loopback http, or a private-use scheme such as com.example.app:';
}

/**
 * What `assent import` asks of federation for an organisation's `redirectUris`
 * (docs/decisions/0004-organisations-as-code.md; docs/decisions/0013-federation-broker.md). Its
 * caller hands `redirectUriImport` to the import (`app/organisations-as-code/import.ts`), which imports only this type:
 * orgs does not depend on federation, which depends on orgs (docs/development.md, code layout).
 */
export interface RedirectUriImport {
  /**
   * Why `uri` may not be registered, or null: the rule of the admin API (`redirectUriProblem`),
   * with http only at loopback, since an import file has no operator list of http hosts.
   */
  problem(uri: string): string | null;
  /**
   * Replaces the organisation's app redirect URIs with `uris` when they differ as sets; an
   * unchanged list writes nothing.
   * @param tx - the import's transaction, so that a bad file writes nothing.
   * @param uris - valid URIs (see `problem`), each once.
   * @returns whether the registered list changed.
   */
  replace(tx: Executor, orgId: string, uris: string[]): Promise<boolean>;
}

/** Federation's side of the import of app redirect URIs (see `RedirectUriImport`). */
export const redirectUriImport: RedirectUriImport = {
  problem: (uri) => redirectUriProblem(uri, []),
  async replace(tx, orgId, uris) {
    const stored = await store.redirectUris(tx, orgId);
    if (stored.length === uris.length && uris.every((uri) => stored.includes(uri))) return false;
    await store.setRedirectUris(tx, orgId, uris);
    return true;
  },
};
