/**
 * The page of a reset link, `GET {ASSENT_PUBLIC_URL}/password/reset#token=…`
 * (docs/decisions/0011-passwords-and-reset.md "The link"): a form for the new password that posts
 * `{token, password}` to `POST {base}/user/password/forgot/complete` and shows the server's answer,
 * whose `Message` names the broken rule of the password policy (the policy is checked by the server
 * only, so that the page and the API can never disagree).
 *
 * The token is in the URL fragment, which browsers never send to a server: it stays out of access
 * logs, proxies and `Referer`. The page's script reads it, then removes it from the address bar and
 * the history. Everything is inline and allowed by hash in the Content-Security-Policy; nothing is
 * loaded from anywhere (ASVS 5.0 V3.4.3 CSP, V3.4.6 frame-ancestors).
 */
import { createHash } from 'node:crypto';

/** The style of Assent's self-contained pages (this one and the invitation page, `src/organisations/invitations/page.ts`). */
export const PAGE_STYLE = `
body { font: 16px/1.5 system-ui, sans-serif; max-width: 28rem; margin: 3rem auto; padding: 0 1rem; color: #1b1b1b; }
h1 { font-size: 1.4rem; }
label { display: block; margin-top: 1rem; font-weight: 600; }
input { box-sizing: border-box; width: 100%; padding: .5rem; font: inherit; }
button { margin-top: 1.25rem; padding: .5rem 1.25rem; font: inherit; }
.hint { color: #555; font-size: .9rem; }
#status { margin-top: 1.25rem; min-height: 1.5em; }
#status.error { color: #a4000f; }
#status.ok { color: #145a14; }
`;

/**
 * The opening of a link page's script (inside its function): reads `token` from the fragment and
 * removes it from the address bar and the history, finds the form and the `#status` line, defines
 * `show(text, ok)`, and stops with `missing` shown when the link carries no token.
 * @param formId - the form's `id`.
 * @param missing - the text shown for a link without a token (no quotes or backslashes).
 */
export function fragmentTokenPrologue(formId: string, missing: string): string {
  return `
  var token = new URLSearchParams(location.hash.slice(1)).get('token');
  if (location.hash) history.replaceState(null, '', location.pathname + location.search);
  var form = document.getElementById('${formId}');
  var status = document.getElementById('status');
  function show(text, ok) { status.textContent = text; status.className = ok ? 'ok' : 'error'; }
  if (!token) { form.hidden = true; show('${missing}', false); return; }`;
}

const SCRIPT = `
(function () {${fragmentTokenPrologue(
  'reset',
  'This link is incomplete. Open the link of the e-mail again, or ask for a new one.',
)}
  form.addEventListener('submit', function (event) {
    event.preventDefault();
    var password = form.elements.password.value;
    if (password !== form.elements.confirm.value) { show('The two passwords differ.', false); return; }
    var button = form.querySelector('button');
    button.disabled = true;
    show('Saving\\u2026', true);
    fetch(form.getAttribute('data-endpoint'), {
      method: 'POST', headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ token: token, password: password }),
      credentials: 'omit', cache: 'no-store', referrerPolicy: 'no-referrer'
    }).then(function (res) {
      if (res.ok) { form.hidden = true; show('Your password has been changed. Sign in with it now.', true); return; }
      return res.json().then(function (body) { show(body && body.Message ? body.Message : 'The password could not be changed.', false); },
        function () { show('The password could not be changed (HTTP ' + res.status + ').', false); });
    }, function () { show('The server could not be reached. Try again.', false); })
      .then(function () { button.disabled = false; });
  });
})();
`;

const hashOf = (text: string) => `'sha256-${createHash('sha256').update(text, 'utf8').digest('base64')}'`;

/**
 * The Content-Security-Policy of a self-contained page: nothing but its own inline script and
 * style (by hash), and requests to its own origin; no framing, no `<base>`, no form elsewhere.
 * @param script - the text of the page's one inline script.
 * @param style - the text of its one inline style.
 */
export function selfContainedPageCsp(script: string, style: string): string {
  return [
    "default-src 'none'",
    `script-src ${hashOf(script)}`,
    `style-src ${hashOf(style)}`,
    "connect-src 'self'",
    "form-action 'self'",
    "base-uri 'none'",
    "frame-ancestors 'none'",
  ].join('; ');
}

/** The reset page's Content-Security-Policy (its requests go to the completion endpoint). */
export const RESET_PAGE_CSP = selfContainedPageCsp(SCRIPT, PAGE_STYLE);

/** Response headers of the page: the CSP, no framing (clickjacking), no Referer, no caching, no sniffing. */
export const RESET_PAGE_HEADERS: Record<string, string> = {
  'Content-Type': 'text/html; charset=utf-8',
  'Content-Security-Policy': RESET_PAGE_CSP,
  'X-Frame-Options': 'DENY',
  'Referrer-Policy': 'no-referrer',
  'X-Content-Type-Options': 'nosniff',
  'Cache-Control': 'no-store',
  'Cross-Origin-Opener-Policy': 'same-origin',
};

/**
 * A self-contained page of a mailed link: the document around a heading, a form and the
 * `#status` line, with the shared style and the page's one inline script.
 * @param title - the title and heading (plain text).
 * @param form - the `<form>` element's HTML.
 * @param script - the page's script (allowed by hash in its CSP).
 */
export function linkPageHtml(title: string, form: string, script: string): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<meta name="robots" content="noindex">
<title>${title}</title>
<style>${PAGE_STYLE}</style>
</head>
<body>
<h1>${title}</h1>
${form}
<p id="status" role="status" aria-live="polite"></p>
<script>${script}</script>
</body>
</html>
`;
}

/**
 * The HTML of the page. The completion endpoint is relative (`../v1/…` from `/password/reset`), so
 * the page works under any `ASSENT_PUBLIC_URL`, path prefix included.
 */
export const RESET_PAGE_HTML = linkPageHtml(
  'Choose a new password',
  `<form id="reset" method="post" data-endpoint="../v1/user/password/forgot/complete">
<p class="hint">At least 8 characters; spaces and any characters are welcome. Common passwords are refused.</p>
<label for="password">New password</label>
<input id="password" name="password" type="password" autocomplete="new-password" required>
<label for="confirm">The same password again</label>
<input id="confirm" name="confirm" type="password" autocomplete="new-password" required>
<button type="submit">Change password</button>
</form>`,
  SCRIPT,
);
