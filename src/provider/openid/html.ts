/**
 * The HTML of the OpenID provider's pages (the wallet page, error pages, logout pages, the
 * same-device return page) and the headers every one of them carries (docs/wallet.md "Headers";
 * OWASP ASVS 5.0 V3.4): no framing (RFC 7034, RFC 9700 §4.16), a Content-Security-Policy without
 * inline script, no caching, no referrer.
 */
import { assetPath } from './assets.js';

/**
 * The Content-Security-Policy of every provider page. Script and style only from this origin's
 * hashed static files; requests only to this origin (the status poll); forms only to this origin
 * (the "new code" button, the logout confirmation: see `logoutCsp`).
 */
export const PAGE_CSP =
  "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; connect-src 'self'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'";

/**
 * The headers of every HTML answer of the provider (docs/wallet.md "Headers").
 * @param csp - the page's policy; `PAGE_CSP` unless the page posts a form that redirects elsewhere.
 */
export function htmlHeaders(csp = PAGE_CSP): Record<string, string> {
  return {
    'Content-Type': 'text/html; charset=utf-8',
    // Clickjacking of the sign-in page (RFC 9700 §4.16): never inside a frame, old browsers included.
    'X-Frame-Options': 'DENY',
    'Content-Security-Policy': csp,
    // The page carries the interaction's state: no cache, shared or private, may keep it.
    'Cache-Control': 'no-store',
    // The page's URL names the interaction: never sent to another site.
    'Referrer-Policy': 'no-referrer',
    'X-Content-Type-Options': 'nosniff',
  };
}

/**
 * The logout page's policy: its form posts to this origin, which answers with a redirect to the
 * relying party's registered `post_logout_redirect_uri`; browsers apply `form-action` to that
 * redirect too (CSP Level 3 §6.3.1), so the origins of those URIs are allowed as well.
 * @param origins - the origins of the client's registered post-logout redirect URIs.
 */
export function logoutCsp(origins: string[]): string {
  const allowed = ["'self'", ...new Set(origins)].join(' ');
  return PAGE_CSP.replace("form-action 'self'", `form-action ${allowed}`);
}

/** Escapes text for HTML element content and double-quoted attribute values. */
export function escapeHtml(text: string): string {
  return text.replace(
    /[&<>"']/g,
    (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c] as string,
  );
}

/**
 * A whole page around `body` (already escaped HTML): the shared stylesheet, and the page script when asked.
 * @param title - plain text.
 * @param body - HTML.
 * @param script - include the wallet page's script.
 */
export function page(title: string, body: string, script = false): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<title>${escapeHtml(title)}</title>
<link rel="stylesheet" href="${assetPath('css')}">
${script ? `<script src="${assetPath('js')}" defer></script>\n` : ''}</head>
<body>
${body}
</body>
</html>
`;
}

/**
 * An error page: a heading and one sentence; never a stack trace or the request's parameters.
 * @param title - plain text heading.
 * @param message - plain text explanation.
 */
export function errorPage(title: string, message: string): string {
  return page(title, `<main class="error"><h1>${escapeHtml(title)}</h1><p>${escapeHtml(message)}</p></main>`);
}
