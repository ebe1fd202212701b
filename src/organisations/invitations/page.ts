/**
 * The page of an invitation link, `GET {ASSENT_PUBLIC_URL}/invitations/accept#token=…` (docs/consents.md
 * "Invitations"): the invited person signs in (`POST {base}/v1.1/users/login`) and the page then
 * accepts with their access token (`POST {base}/user/invitations/accept`), showing the server's
 * `Message` when it refuses. The tokens stay in the page's memory and go when it closes.
 *
 * As on the password-reset page (`src/identity/passwords/page.ts`): the token is in the fragment, which
 * browsers never send to a server, and the script removes it from the address bar and the
 * history; everything is inline and allowed by hash in the Content-Security-Policy (ASVS 5.0
 * V3.4.3), and the page may not be framed (V3.4.6).
 */
import {
  fragmentTokenPrologue,
  linkPageHtml,
  PAGE_STYLE,
  RESET_PAGE_HEADERS,
  selfContainedPageCsp,
} from '../../identity/index.js';

/**
 * Script functions of the invitation pages (this one and the staff invitation's, `src/organisations/staff/page.ts`),
 * inside the prologue's function: `post(url, body, bearer)` answers `{ok, body}` of a JSON POST without cookies,
 * and `refused(answer, what)` shows the server's `Message`, else `what`.
 */
// A `\` at the end of a line joins it to the next: the script has no line break there.
export const INVITATION_SCRIPT_HELPERS = `
  function post(url, body, bearer) {
    var headers = { 'Content-Type': 'application/json' };
    if (bearer) headers.Authorization = 'Bearer ' + bearer;
    return fetch(url, { method: 'POST', headers: headers, body: JSON.stringify(body), credentials: 'omit', \
cache: 'no-store', referrerPolicy: 'no-referrer' })
      .then(function (res) { return res.json().then(function (b) { return { ok: res.ok, body: b }; }, \
function () { return { ok: res.ok, body: null }; }); });
  }
  function refused(answer, what) { show(answer.body && answer.body.Message ? answer.body.Message : what, false); }
`;

const SCRIPT = `
(function () {${fragmentTokenPrologue('accept', 'This link is incomplete. Open the link of the e-mail again.')}${INVITATION_SCRIPT_HELPERS}  form.addEventListener('submit', function (event) {
    event.preventDefault();
    var button = form.querySelector('button');
    button.disabled = true;
    show('Signing in\\u2026', true);
    post(form.getAttribute('data-login'), { username: form.elements.username.value, \
password: form.elements.password.value }).then(function (login) {
      if (!login.ok) { refused(login, 'Signing in failed.'); return; }
      return post(form.getAttribute('data-accept'), { token: token }, login.body.Token.access_token).then(function (accepted) {
        if (!accepted.ok) { refused(accepted, 'The invitation could not be accepted.'); return; }
        form.hidden = true;
        show('You have joined ' + accepted.body.Org.Name + '.', true);
      });
    }, function () { show('The server could not be reached. Try again.', false); }).then(function () { button.disabled = false; });
  });
})();
`;

/** Response headers of the page: those of the reset page, with this page's script and style hashes. */
export const INVITATION_PAGE_HEADERS: Record<string, string> = {
  ...RESET_PAGE_HEADERS,
  'Content-Security-Policy': selfContainedPageCsp(SCRIPT, PAGE_STYLE),
};

/** The HTML of the page; the endpoints are relative (`../v1/…`), so any `ASSENT_PUBLIC_URL` path prefix works. */
export const INVITATION_PAGE_HTML = linkPageHtml(
  'Accept an invitation',
  `<form id="accept" method="post" data-login="../v1/v1.1/users/login" data-accept="../v1/user/invitations/accept">
<p class="hint">Sign in with your account to join the organisation that invited you.</p>
<label for="username">Username</label>
<input id="username" name="username" autocomplete="username" required>
<label for="password">Password</label>
<input id="password" name="password" type="password" autocomplete="current-password" required>
<button type="submit">Sign in and accept</button>
</form>`,
  SCRIPT,
);
