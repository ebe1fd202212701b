/**
 * The privacy dashboard's wallet sign-in page (docs/web.md "Sign-in"; docs/wallet.md "The sign-in
 * page"): the request as an inline SVG QR code (src/provider/wallet/qr.ts, as the provider's page shows it)
 * and an "Open in wallet" link, and a status area that htmx reloads every 2 s until the
 * transaction has ended (no inline script: the page's CSP forbids it).
 */
import type { WalletOutcome } from '../../provider/index.js';
import { Layout } from '../shared/layout.js';

const APP = 'Privacy dashboard';
const HOME = '/dashboard';
/** The page's base path. */
export const WALLET_PATH = '/dashboard/sign-in/wallet';

/** Links of one sign-in: the page again (a new code), its status, its completion. */
export function walletLinks(organisation: string, next: string) {
  const query = new URLSearchParams({ organisation, next }).toString();
  return {
    page: `${WALLET_PATH}?${query}`,
    status: `${WALLET_PATH}/status?${query}`,
    complete: `${WALLET_PATH}/complete`,
    signIn: `/dashboard/sign-in?${query}`,
  };
}

/** What the page shows. */
export interface WalletPageProps {
  organisation: string;
  next: string;
  /** The OpenID4VP request: the QR code's content and the link's `href`. */
  deepLink: string;
  /** The QR code, `<svg>` markup of paths only (src/provider/wallet/qr.ts). */
  svg: string;
  expiresAt: Date;
  sameDeviceOnly: boolean;
}

/** The whole page. */
export function WalletSignInPage(p: WalletPageProps) {
  const links = walletLinks(p.organisation, p.next);
  return (
    <Layout title="Sign in with your wallet" app={APP} home={HOME}>
      <h1>Sign in with your wallet</h1>
      <div id="wallet" data-deeplink={p.deepLink} data-expires-at={p.expiresAt.toISOString()}>
        {p.sameDeviceOnly ? (
          <p>Open your wallet on this device.</p>
        ) : (
          <>
            {/* qrcode's SVG of paths only (no script, style or link), made from our own deep link */}
            <div
              class="qr"
              role="img"
              aria-label="QR code of the wallet request"
              dangerouslySetInnerHTML={{ __html: p.svg }}
            />
            <p>Scan the code with your wallet app, or open the wallet on this device.</p>
          </>
        )}
        <p>
          <a class="button" id="open-wallet" href={p.deepLink}>
            Open in wallet
          </a>
        </p>
        <WalletStatus outcome={{ status: 'pending' }} organisation={p.organisation} next={p.next} />
        <p>
          <a href={links.signIn}>Sign in another way</a>
        </p>
      </div>
    </Layout>
  );
}

/**
 * The status area: polled while pending; once verified (and completion here is allowed) a form
 * that htmx posts at once (a button without script); else what happened and a new code.
 */
export function WalletStatus({
  outcome,
  organisation,
  next,
}: {
  outcome: WalletOutcome;
  organisation: string;
  next: string;
}) {
  const links = walletLinks(organisation, next);
  if (outcome.status === 'pending')
    return (
      <div id="wallet-status" hx-get={links.status} hx-trigger="every 2s" hx-swap="outerHTML" aria-live="polite">
        <p class="muted">Waiting for your wallet… This code is valid for 5 minutes.</p>
        <p>
          <a href={links.page}>New code</a>
        </p>
      </div>
    );
  if (outcome.status === 'verified' && !outcome.sameDeviceOnly)
    return (
      <div id="wallet-status" aria-live="polite">
        <form method="post" action={links.complete} hx-post={links.complete} hx-trigger="load">
          <input type="hidden" name="next" value={next} />
          <p class="ok">Your wallet has answered.</p>
          <button type="submit">Continue</button>
        </form>
      </div>
    );
  if (outcome.status === 'verified')
    return (
      <div id="wallet-status" aria-live="polite">
        <p class="ok">Your wallet has answered: the sign-in continues in the browser your wallet opened.</p>
      </div>
    );
  const text =
    outcome.status === 'expired'
      ? 'This code has expired.'
      : outcome.error === 'access_denied'
        ? 'Your wallet declined the sign-in.'
        : 'Your wallet’s answer was not accepted.';
  return (
    <div id="wallet-status" aria-live="polite">
      <p class="error" role="alert">
        {text}
      </p>
      <p>
        <a href={links.page}>New code</a>
      </p>
    </div>
  );
}

/** The same-device return opened in a browser that did not start the sign-in (docs/wallet.md). */
export function ElsewherePage({ elsewhere }: { elsewhere: 'other_device' | 'same_browser_only' }) {
  return elsewhere === 'other_device' ? (
    <Layout title="Continue on your other device" app={APP} home={HOME}>
      <h1>Continue on your other device</h1>
      <p>Your wallet has answered. Go back to the device that shows the sign-in page: it continues there.</p>
    </Layout>
  ) : (
    <Layout title="Start again in this browser" app={APP} home={HOME}>
      <h1>Start again in this browser</h1>
      <p>
        This organisation lets a wallet sign-in finish only in the browser that the wallet opens, and this is not the
        browser where the sign-in began. Start the sign-in again here.
      </p>
    </Layout>
  );
}
