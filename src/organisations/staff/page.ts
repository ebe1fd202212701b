/**
 * The page of a staff invitation link, `GET {ASSENT_PUBLIC_URL}/staff-invitations/accept#token=…` (docs/staff.md
 * "Inviting staff"). Two ways to accept:
 * - sign in (`POST {base}/v1.1/users/login`) with the account of the invited address, then accept with its access
 *   token (`POST {base}/user/staff-invitations/accept`);
 * - create an account with a name and a password (`POST {base}/staff-invitations/register`).
 * The server's `Message` is shown when it refuses. As on the other link pages (`src/identity/passwords/page.ts`): the
 * token is in the fragment and leaves the address bar at once; everything is inline and allowed by hash in the
 * Content-Security-Policy (ASVS 5.0 V3.4.3), and the page may not be framed (V3.4.6).
 */
import {
  fragmentTokenPrologue,
  linkPageHtml,
  PAGE_STYLE,
  RESET_PAGE_HEADERS,
  selfContainedPageCsp,
} from '../../identity/index.js';
import { INVITATION_SCRIPT_HELPERS } from '../invitations/page.js';

const SCRIPT = `
(function () {${fragmentTokenPrologue('choices', 'This link is incomplete. Open the link of the e-mail again.')}${INVITATION_SCRIPT_HELPERS}
  function joined(answer) {
    form.hidden = true;
    var roles = answer.body.Staff.Roles.map(function (r) { return r.Role; }).join(', ');
    show('You are now on the staff of ' + answer.body.Org.Name + ' as ' + roles + '. Sign in to the console.', true);
  }
  function busy(f, text) { var b = f.querySelector('button'); b.disabled = true; show(text, true); return b; }
  var signIn = document.getElementById('accept');
  signIn.addEventListener('submit', function (event) {
    event.preventDefault();
    var button = busy(signIn, 'Signing in\\u2026');
    post(signIn.getAttribute('data-login'), { username: signIn.elements.username.value, \\
password: signIn.elements.password.value }).then(function (login) {
      if (!login.ok) { refused(login, 'Signing in failed.'); return; }
      return post(signIn.getAttribute('data-accept'), { token: token }, login.body.Token.access_token).then(function (a) {
        if (!a.ok) { refused(a, 'The invitation could not be accepted.'); return; }
        joined(a);
      });
    }, function () { show('The server could not be reached. Try again.', false); }).then(function () { button.disabled = false; });
  });
  var create = document.getElementById('register');
  create.addEventListener('submit', function (event) {
    event.preventDefault();
    if (create.elements.newpassword.value !== create.elements.confirm.value) { show('The two passwords differ.', false); return; }
    var button = busy(create, 'Creating your account\\u2026');
    post(create.getAttribute('data-register'), { token: token, name: create.elements.name.value, \\
password: create.elements.newpassword.value }).then(function (a) {
      if (!a.ok) { refused(a, 'The account could not be created.'); return; }
      joined(a);
    }, function () { show('The server could not be reached. Try again.', false); }).then(function () { button.disabled = false; });
  });
})();
`;

/** Response headers of the page: those of the reset page, with this page's script and style hashes. */
export const STAFF_INVITATION_PAGE_HEADERS: Record<string, string> = {
  ...RESET_PAGE_HEADERS,
  'Content-Security-Policy': selfContainedPageCsp(SCRIPT, PAGE_STYLE),
};

/** The HTML of the page; the endpoints are relative (`../v1/…`), so any `ASSENT_PUBLIC_URL` path prefix works. */
export const STAFF_INVITATION_PAGE_HTML = linkPageHtml(
  'Join an organisation’s staff',
  `<div id="choices">
<form id="accept" method="post" data-login="../v1/v1.1/users/login" data-accept="../v1/user/staff-invitations/accept">
<h2>I have an account</h2>
<p class="hint">Sign in with the account of the address the invitation was sent to.</p>
<label for="username">Username</label>
<input id="username" name="username" autocomplete="username" required>
<label for="password">Password</label>
<input id="password" name="password" type="password" autocomplete="current-password" required>
<button type="submit">Sign in and accept</button>
</form>
<form id="register" method="post" data-register="../v1/staff-invitations/register">
<h2>I am new here</h2>
<p class="hint">Your username is the invited e-mail address. A password of at least 8 characters; common passwords are
refused.</p>
<label for="name">Your name</label>
<input id="name" name="name" autocomplete="name" maxlength="200" required>
<label for="newpassword">Password</label>
<input id="newpassword" name="newpassword" type="password" autocomplete="new-password" required>
<label for="confirm">The password again</label>
<input id="confirm" name="confirm" type="password" autocomplete="new-password" required>
<button type="submit">Create my account and accept</button>
</form>
</div>`,
  SCRIPT,
);
