/**
 * Helpers of the OpenID provider tests (SPEC 4.1; docs/wallet.md): two organisations with relying
 * parties registered through the import, the fake wallet plugged in through `ctx.wallet`, and a
 * cookie-keeping user agent that follows `/auth` to the wallet page.
 */

import jsQR from 'jsqr';
import { redirectUriImport } from '../../src/federation/redirect-uris.js';
import { oidcClientImport } from '../../src/oidc/import.js';
import { runImport } from '../../src/orgs/import.js';
import type { TestAssent } from './assent.js';
import { FakeWallet } from './fake-wallet.js';
import { Browser } from './oidc.js';

/** The relying party's redirect URI (never fetched: the user agent stops at the redirect). */
export const RP_CALLBACK = 'http://127.0.0.1:7/cb';
/** Its post-logout redirect URI. */
export const RP_LOGGED_OUT = 'http://127.0.0.1:7/logged-out';

/** One organisation of the tests. */
export interface TestOrg {
  id: string;
  /** The confidential client `shop`'s secret. */
  shopSecret: string;
  issuer: string;
}

/** The world of a provider test. */
export interface ProviderWorld {
  acme: TestOrg;
  beta: TestOrg;
  wallet: FakeWallet;
}

/**
 * Registers clients at two organisations (`acme`, the demo one, and `beta`): a confidential
 * `shop` at each, and a public `app` at acme; plugs the fake wallet in.
 */
export async function providerWorld(s: TestAssent): Promise<ProviderWorld> {
  const clients = [
    {
      clientId: 'shop',
      name: 'Web shop',
      public: false,
      redirectUris: [RP_CALLBACK],
      postLogoutRedirectUris: [RP_LOGGED_OUT],
    },
  ];
  const result = await runImport(
    s.store.db,
    {
      organisations: [
        {
          key: 'acme',
          name: 'Acme',
          oidcClients: [
            ...clients,
            { clientId: 'app', name: 'Mobile <app>', public: true, redirectUris: [RP_CALLBACK] },
          ],
        },
        { key: 'beta', name: 'Beta Org', oidcClients: clients },
      ],
    },
    s.config.argon2,
    redirectUriImport,
    oidcClientImport,
  );
  const org = (key: string): TestOrg => {
    const o = result.organisations[key]!;
    return {
      id: o.id,
      shopSecret: o.oidcClients!.shop!.clientSecret!,
      issuer: `${s.url}/v3/service/extension/oidc/${o.id}`,
    };
  };
  const wallet = new FakeWallet();
  // The test hook: the real verifier (src/wallet/) takes this place in createContext.
  s.ctx.wallet = wallet;
  return { acme: org('acme'), beta: org('beta'), wallet };
}

/** Valid authorization parameters of `shop`, with overrides (`undefined` removes one). */
export function authParams(over: Record<string, string | undefined> = {}): Record<string, string> {
  const all: Record<string, string | undefined> = {
    client_id: 'shop',
    redirect_uri: RP_CALLBACK,
    response_type: 'code',
    scope: 'openid',
    state: 'st-123',
    nonce: 'n-456',
    ...over,
  };
  return Object.fromEntries(Object.entries(all).filter((e): e is [string, string] => e[1] !== undefined));
}

/** The `/auth` URL of an organisation with these parameters. */
export function authUrl(org: TestOrg, params: Record<string, string>): string {
  return `${org.issuer}/auth?${new URLSearchParams(params)}`;
}

/** The data attributes of `#wallet` and other parts of a wallet page. */
export function parsePage(html: string) {
  const attr = (name: string) => {
    const m = new RegExp(`${name}="([^"]*)"`).exec(html);
    return m ? m[1]!.replace(/&amp;/g, '&').replace(/&quot;/g, '"') : undefined;
  };
  return {
    statusUrl: attr('data-status-url'),
    deepLink: attr('data-deeplink'),
    expiresAt: attr('data-expires-at'),
    openHref: /id="open-wallet" href="([^"]*)"/.exec(html)?.[1]?.replace(/&amp;/g, '&'),
    refreshAction: /<form method="post" action="([^"]*)"/.exec(html)?.[1],
    abortHref: /id="cancel" href="([^"]*)"/.exec(html)?.[1],
  };
}

/**
 * Opens `/auth` in the browser and follows oidc-provider's 303 to the wallet page.
 * @returns the interaction `uid`, the page's URL and its HTML.
 */
export async function openWalletPage(browser: Browser, org: TestOrg, params: Record<string, string>) {
  const auth = await browser.request(authUrl(org, params));
  if (auth.status !== 303 || !auth.location) throw new Error(`/auth answered ${auth.status}: ${auth.body}`);
  const pageUrl = auth.location;
  const uid = /\/interaction\/([^/?]+)$/.exec(new URL(pageUrl).pathname)?.[1];
  if (!uid) throw new Error(`not an interaction URL: ${pageUrl}`);
  const res = await fetchWithJar(browser, pageUrl);
  return { uid, pageUrl, res };
}

/** A GET with the browser's cookies that also returns the answer's headers. */
export async function fetchWithJar(browser: Browser, url: string, init: { method?: string } = {}) {
  const headers: Record<string, string> = {};
  if (browser.cookies.size) headers.cookie = [...browser.cookies].map(([k, v]) => `${k}=${v}`).join('; ');
  const res = await fetch(url, { method: init.method ?? 'GET', headers, redirect: 'manual' });
  const location = res.headers.get('location');
  return {
    status: res.status,
    headers: res.headers,
    location: location ? new URL(location, url).href : null,
    body: await res.text(),
  };
}

export { Browser };

/**
 * Follows redirects from `url` in the browser until one leaves for the relying party.
 * @returns the relying party's URL (not fetched), or throws with the last answer.
 */
export async function followToRp(browser: Browser, url: string, stopAt = RP_CALLBACK): Promise<URL> {
  let next = url;
  for (let i = 0; i < 10; i++) {
    if (next.startsWith(stopAt)) return new URL(next);
    const res = await browser.request(next);
    if (!res.location) throw new Error(`${next} answered ${res.status} without a redirect: ${res.body.slice(0, 300)}`);
    next = res.location;
  }
  throw new Error('too many redirects');
}

/**
 * Decodes the page's inline SVG QR code (qrcode's output: one stroked path of `M x y`, `m dx dy`
 * and `h n` commands over a white square) by drawing it into a bitmap, 8 pixels a module, and
 * reading it with jsQR.
 * @returns the QR code's text, or null when none is found.
 */
export function decodeSvgQr(html: string): string | null {
  const size = Number(/viewBox="0 0 (\d+) \d+"/.exec(html)?.[1]);
  const d = /<path stroke="[^"]*" d="([^"]+)"/.exec(html)?.[1];
  if (!size || !d) return null;
  const scale = 8;
  const width = size * scale;
  const pixels = new Uint8ClampedArray(width * width * 4).fill(255);
  let x = 0;
  let y = 0;
  for (const [, cmd, a, b] of d.matchAll(/([MmHh])(-?[\d.]+)(?:\s(-?[\d.]+))?/g)) {
    if (cmd === 'M') [x, y] = [Number(a), Number(b)];
    else if (cmd === 'm') [x, y] = [x + Number(a), y + Number(b)];
    else {
      const row = Math.floor(y);
      for (let col = x; col < x + Number(a); col++)
        for (let dy = 0; dy < scale; dy++)
          for (let dx = 0; dx < scale; dx++) {
            const i = ((row * scale + dy) * width + col * scale + dx) * 4;
            pixels[i] = pixels[i + 1] = pixels[i + 2] = 0;
          }
      x += Number(a);
    }
  }
  return jsQR(pixels, width, width)?.data ?? null;
}
