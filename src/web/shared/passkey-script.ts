/**
 * The passkey script of the web front ends (docs/security.md "Passkeys"; docs/web.md "Security"), served from this
 * origin with a content hash like the page script, beside `@simplewebauthn/browser`'s UMD bundle (its global
 * `SimpleWebAuthnBrowser`), so the strict CSP stays: no inline script, no CDN.
 *
 * A form marked `data-passkey="register"` or `data-passkey="authenticate"` is sent in two steps: the script posts to
 * the form's `data-options` URL (with the form's `_csrf` as `x-csrf-token`, and its `mfa_token` when it has one) for
 * the WebAuthn options, asks the browser (`startRegistration` / `startAuthentication`), puts the answer's JSON in the
 * form's `response` field and submits the form, so the server answers with a page as for any form. A refusal or a
 * cancelled prompt is said in the form's `[role=status]` element. Without script (or WebAuthn) the button does
 * nothing but say so.
 *
 * Kept as text, like the page script: the exact bytes served are the ones hashed. Plain ES2020.
 */
export const PASSKEY_SCRIPT = `(() => {
  'use strict';
  const say = (form, text) => { const s = form.querySelector('[role=status]'); if (s) s.textContent = text; };
  document.addEventListener('submit', async (event) => {
    const form = event.target;
    if (!(form instanceof HTMLFormElement) || !form.dataset.passkey || form.elements.response.value) return;
    event.preventDefault();
    const lib = window.SimpleWebAuthnBrowser;
    if (!lib || !lib.browserSupportsWebAuthn()) { say(form, 'This browser cannot use passkeys.'); return; }
    const headers = { 'content-type': 'application/json' };
    if (form.elements._csrf) headers['x-csrf-token'] = form.elements._csrf.value;
    const body = form.elements.mfa_token ? { mfa_token: form.elements.mfa_token.value } : {};
    say(form, 'Waiting for your passkey…');
    try {
      const res = await fetch(form.dataset.options, { method: 'POST', headers, body: JSON.stringify(body),
        credentials: 'same-origin', cache: 'no-store' });
      if (!res.ok) { say(form, 'The passkey could not be started (HTTP ' + res.status + '). Reload and try again.'); return; }
      const optionsJSON = await res.json();
      const answer = form.dataset.passkey === 'register'
        ? await lib.startRegistration({ optionsJSON })
        : await lib.startAuthentication({ optionsJSON });
      form.elements.response.value = JSON.stringify(answer);
      form.submit();
    } catch (err) {
      say(form, err && err.name === 'NotAllowedError' ? 'The passkey prompt was closed. Try again.' :
        'The passkey did not work: ' + (err && err.message ? err.message : 'unknown error'));
    }
  });
})();
`;
