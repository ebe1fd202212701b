/**
 * The wallet sign-in page (docs/wallet.md "The sign-in page", "Headers"): the organisation's and
 * the relying party's names, the request as an inline SVG QR code (no script, no `data:` URL) and
 * as an "Open in wallet" link, a countdown to the transaction's expiry, and a "new code" button.
 * Its script is the hashed static file of assets.ts; what it needs is in `data-`
 * attributes of `#wallet`.
 */
import { qrSvg } from '../wallet/qr.js';
import { escapeHtml, page } from './html.js';

/** What the page shows. */
export interface WalletPageModel {
  organisationName: string;
  relyingPartyName: string;
  /** The OpenID4VP request (`openid4vp://…`): the QR code's content and the link's `href`. */
  deepLink: string;
  expiresAt: Date;
  sameDeviceOnly: boolean;
  /** Paths of this interaction's status, refresh and abort endpoints. */
  statusUrl: string;
  refreshUrl: string;
  abortUrl: string;
}

/**
 * The page's HTML.
 * @param m - see `WalletPageModel`; every text is escaped.
 */
export async function walletPage(m: WalletPageModel): Promise<string> {
  // The QR code is a `<svg>` of paths only (no script, style or link): safe to inline under the page's CSP.
  const svg = await qrSvg(m.deepLink);
  const org = escapeHtml(m.organisationName);
  const rp = escapeHtml(m.relyingPartyName);
  const qr = m.sameDeviceOnly
    ? '<p class="hint">Open your wallet on this device.</p>'
    : `<div class="qr" role="img" aria-label="QR code of the wallet request">${svg}</div>
<p class="hint">Scan the code with your wallet app, or open the wallet on this device.</p>`;
  const body = `<main id="wallet" data-status-url="${escapeHtml(m.statusUrl)}" data-deeplink="${escapeHtml(m.deepLink)}" data-expires-at="${m.expiresAt.toISOString()}">
<h1>Sign in to ${rp}</h1>
<p>${org} asks you to sign in to <strong>${rp}</strong> with your digital identity wallet.</p>
${qr}
<p><a class="open" id="open-wallet" href="${escapeHtml(m.deepLink)}">Open in wallet</a></p>
<p class="countdown">This code expires in <span id="countdown">${secondsLeft(m.expiresAt)}</span>.</p>
<p id="expired" hidden>This code has expired.</p>
<form method="post" action="${escapeHtml(m.refreshUrl)}"><button type="submit" id="new-code">New code</button></form>
<p><a id="cancel" href="${escapeHtml(m.abortUrl)}">Cancel and return to ${rp}</a></p>
</main>`;
  return page(`Sign in to ${m.relyingPartyName}`, body, true);
}

/** `m:ss` until `at`, for the page without script. */
function secondsLeft(at: Date): string {
  const left = Math.max(0, Math.round((at.getTime() - Date.now()) / 1000));
  return `${Math.floor(left / 60)}:${String(left % 60).padStart(2, '0')}`;
}

/**
 * The same-device return opened in another browser where the organisation allows only same-device
 * completion (`sameDeviceOnly`, HAIP 1.0 §5.1): the sign-in cannot go on anywhere; start again here.
 */
export function sameBrowserOnlyPage(): string {
  return page(
    'Start again in this browser',
    '<main><h1>Start again in this browser</h1><p>This organisation lets a wallet sign-in finish only in the browser that the wallet opens, and this is not the browser where the sign-in began. Start the sign-in again here.</p></main>',
  );
}

/**
 * The same-device return opened in another browser (docs/wallet.md "The sign-in page",
 * `wallet-return`): the sign-in finishes on the device that shows the code.
 */
export function otherDevicePage(): string {
  return page(
    'Continue on your other device',
    '<main><h1>Continue on your other device</h1><p>Your wallet has answered. Go back to the device that shows the sign-in page: it continues there.</p></main>',
  );
}
