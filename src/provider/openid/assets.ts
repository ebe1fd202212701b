/**
 * The static files of the wallet sign-in page: its script and its stylesheet, served from this
 * origin under a name that carries a hash of their content (docs/wallet.md "The sign-in page",
 * "Headers": no inline script, so the Content-Security-Policy can say `script-src 'self'`). A new
 * version gets a new name, so the files are cached for a year and never revalidated.
 *
 * The script reads everything it needs from `data-` attributes of `#wallet` (`data-status-url`,
 * `data-expires-at`), counts down to the expiry, and polls the status every 1.5 s; when the status
 * names a `next` URL it navigates there (GET), which ends the interaction.
 */
import { createHash } from 'node:crypto';

const SCRIPT = `(function () {
  'use strict';
  var root = document.getElementById('wallet');
  if (!root) return;
  var statusUrl = root.getAttribute('data-status-url');
  var expiresAt = Date.parse(root.getAttribute('data-expires-at'));
  var countdown = document.getElementById('countdown');
  var expired = document.getElementById('expired');
  var stopped = false;
  function showExpired() { stopped = true; if (expired) expired.hidden = false; root.classList.add('expired'); }
  function tick() {
    var left = Math.max(0, Math.round((expiresAt - Date.now()) / 1000));
    if (countdown) countdown.textContent = Math.floor(left / 60) + ':' + String(left % 60).padStart(2, '0');
    if (left === 0) showExpired();
  }
  function poll() {
    if (stopped) return;
    fetch(statusUrl, { credentials: 'same-origin', cache: 'no-store', headers: { accept: 'application/json' } })
      .then(function (res) { return res.ok ? res.json() : null; })
      .then(function (body) {
        if (body && body.next) { stopped = true; location.assign(body.next); return; }
        if (body && body.status === 'expired') { showExpired(); return; }
        if (!body) { showExpired(); return; }
        setTimeout(poll, 1500);
      }, function () { setTimeout(poll, 3000); });
  }
  tick();
  setInterval(tick, 1000);
  setTimeout(poll, 1500);
})();
`;

const STYLE = `body { font: 16px/1.5 system-ui, sans-serif; max-width: 30rem; margin: 2rem auto; padding: 0 1rem; color: #1b1b1b; }
h1 { font-size: 1.4rem; }
.qr { width: 16rem; height: 16rem; margin: 1rem auto; display: block; }
.qr svg { width: 100%; height: 100%; }
.open { display: inline-block; margin: .5rem 0; padding: .6rem 1.2rem; background: #1b4f9c; color: #fff; text-decoration: none; border-radius: .3rem; }
.hint, .countdown { color: #555; font-size: .9rem; }
.expired .qr { opacity: .2; }
button { padding: .5rem 1.25rem; font: inherit; }
.error h1 { color: #a4000f; }
`;

const hash = (text: string) => createHash('sha256').update(text, 'utf8').digest('base64url').slice(0, 16);

/** The files by extension: body, content type, and the hashed name. */
const ASSETS = {
  js: { body: SCRIPT, type: 'text/javascript; charset=utf-8', name: `wallet-sign-in.${hash(SCRIPT)}.js` },
  css: { body: STYLE, type: 'text/css; charset=utf-8', name: `wallet-sign-in.${hash(STYLE)}.css` },
} as const;

/** Where the files are served (a path of this origin). */
export const ASSET_PREFIX = '/assets/';

/** The path of the script (`js`) or stylesheet (`css`), with its content hash in the name. */
export function assetPath(kind: keyof typeof ASSETS): string {
  return `${ASSET_PREFIX}${ASSETS[kind].name}`;
}

/**
 * The file of that name, or null (an old hash included: a stale name is a 404, never another version).
 * @param name - the last path segment.
 */
export function assetByName(name: string): { body: string; type: string } | null {
  for (const asset of Object.values(ASSETS)) if (asset.name === name) return asset;
  return null;
}
