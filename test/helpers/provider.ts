/**
 * Helpers of the OpenID provider tests (docs/api.md "Authorization endpoint"; docs/wallet.md): two organisations with relying
 * parties and wallet settings registered through the import (each trusting its own test issuer CA,
 * with a generated verifier key), the test wallet (test/helpers/wallet/wallet.ts) holding a
 * credential of each issuer, and a cookie-keeping user agent that follows `/auth` to the wallet
 * page.
 */

import jsQRModule from 'jsqr';
import { expect } from 'vitest';
import { runImport } from '../../src/app/organisations-as-code/import.js';
import { redirectUriImport } from '../../src/federation/openid/redirect-uris.js';
import { oidcClientImport } from '../../src/provider/relying-parties/import.js';
import { walletSettingsImport } from '../../src/provider/wallet/import.js';
import { login, type TestAssent } from './assent.js';
import { runCli, type TestStore, writeFile } from './cli.js';
import { Browser } from './oidc.js';
import { holderKey, issue } from './wallet/issuer.js';
import { createPki, type TestCert, type TestPki } from './wallet/pki.js';
import { type Knobs, type Submitted, TestWallet } from './wallet/wallet.js';

// jsqr's CommonJS build exports the function itself; its typings declare it as the default export.
const jsQR = jsQRModule as unknown as typeof jsQRModule.default;

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
  /** An access token of the organisation's Owner (admin API). */
  ownerToken: string;
  /** The wallet settings the import gave it (to PUT them back after a test changed them). */
  walletSettings: Record<string, unknown>;
  /** A valid credential of the organisation's trusted issuer, held by the world's wallet. */
  credential: string;
}

/** The world of a provider test. */
export interface ProviderWorld {
  acme: TestOrg;
  beta: TestOrg;
  pki: TestPki;
  /** The test wallet (test/helpers/wallet/wallet.ts), holder of both organisations' credentials. */
  wallet: TestWallet;
  /**
   * The wallet answers the request of a wallet page (its HTML): resolves the deep link, presents
   * the organisation's credential with key binding (corrupted by `knobs`), posts the response.
   */
  present(org: TestOrg, pageHtml: string, knobs?: Knobs): Promise<Submitted>;
}

/** The ID-token claims the organisations' claim mapping gives the world's credential (issuer.ts `ALICE`). */
export const WALLET_CLAIMS = { email: 'alice.wallet@example.test', email_verified: true, given_name: 'Alice' };

/** The `response_code` of a verified response's `redirect_uri` (OpenID4VP 1.0 §8.2). */
export function responseCodeOf(answer: Submitted): string {
  if (answer.status !== 200 || !answer.body.redirect_uri)
    throw new Error(`the verifier refused: ${answer.status} ${JSON.stringify(answer.body)}`);
  return new URL(answer.body.redirect_uri).searchParams.get('response_code')!;
}

/**
 * Registers clients and wallet settings at two organisations through the import (`acme`, the demo
 * one, trusting `pki.root`, and `beta`, trusting `pki.root2`): a confidential `shop` at each, and
 * a public `app` at acme; the real verifier (`ctx.wallet`) answers the test wallet.
 */
export async function providerWorld(s: TestAssent): Promise<ProviderWorld> {
  const [pki, holder] = await Promise.all([createPki(), holderKey()]);
  const wallet = (root: TestCert) => ({
    generateVerifierKey: true,
    trustedIssuerCertificates: [root.pem],
    claimMapping: { email: ['email_address'], given_name: ['given_name'] },
  });
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
          wallet: wallet(pki.root),
        },
        {
          key: 'beta',
          name: 'Beta Org',
          location: 'Oslo',
          type: 'Retail',
          admins: [{ username: 'owner@beta.example', password: 'beta-owner-passphrase', roles: ['owner'] }],
          oidcClients: clients,
          wallet: wallet(pki.root2),
        },
      ],
    },
    s.config.argon2,
    redirectUriImport,
    oidcClientImport,
    walletSettingsImport(s.ctx.master, new URL(s.config.publicUrl).hostname),
  );
  const org = async (key: string, owner: [string, string], signer: TestCert, iss: string): Promise<TestOrg> => {
    const o = result.organisations[key]!;
    return {
      id: o.id,
      shopSecret: o.oidcClients!.shop!.clientSecret!,
      issuer: `${s.url}/v3/service/extension/oidc/${o.id}`,
      ownerToken: (await login(s, owner[0], owner[1])).Token.access_token,
      walletSettings: wallet(key === 'acme' ? pki.root : pki.root2),
      credential: await issue({ holder, signer, iss }),
    };
  };
  const acme = await org('acme', ['owner@acme.example', 'owner-passphrase'], pki.issuer, 'https://issuer.test');
  const beta = await org('beta', ['owner@beta.example', 'beta-owner-passphrase'], pki.issuer2, 'https://issuer2.test');
  const testWallet = new TestWallet(holder);
  return {
    acme,
    beta,
    pki,
    wallet: testWallet,
    async present(o, pageHtml, knobs = {}) {
      const deepLink = parsePage(pageHtml).deepLink;
      if (!deepLink) throw new Error('the page has no data-deeplink');
      return testWallet.present(await testWallet.resolve(deepLink), o.credential, knobs);
    },
  };
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
export function openWalletPage(browser: Browser, org: TestOrg, params: Record<string, string>) {
  return followAuthToPage(browser, authUrl(org, params));
}

/**
 * Opens an authorization URL in the browser and follows oidc-provider's 303 to the wallet page,
 * whatever that page answers.
 * @returns the interaction `uid`, the page's URL and its answer.
 * @throws Error when `/auth` does not answer 303 to an interaction.
 */
export async function followAuthToPage(browser: Browser, url: string) {
  const auth = await browser.request(url);
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
  const res = await browser.fetch(url, { method: init.method ?? 'GET', headers, redirect: 'manual' });
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

/**
 * Imports, with the real `assent import`, an organisation `acme` with one public relying party
 * `app` redirecting to `RP_CALLBACK`: the set-up of the tests that run `assent serve` processes.
 * @param store - the fresh store the processes will share.
 * @param env - their environment.
 * @returns the organisation's ID.
 * @throws the import's stderr when it does not exit 0.
 */
export async function importAcmeWithApp(store: TestStore, env: Record<string, string>): Promise<string> {
  const file = writeFile(store.dataDir, 'import.json', {
    organisations: [
      {
        key: 'acme',
        name: 'Acme',
        oidcClients: [{ clientId: 'app', name: 'App', public: true, redirectUris: [RP_CALLBACK] }],
      },
    ],
  });
  const imported = await runCli(['import', file], env);
  if (imported.code !== 0) throw new Error(`assent import failed: ${imported.stderr}`);
  return JSON.parse(imported.stdout).organisations.acme.id as string;
}

/** The headers of every HTML answer of the provider (docs/wallet.md "Headers"; RFC 7034; RFC 9700 §4.16). */
export function expectPageHeaders(headers: Headers): void {
  expect(headers.get('content-type')).toMatch(/^text\/html/);
  expect(headers.get('x-frame-options')).toBe('DENY');
  expect(headers.get('content-security-policy')).toBe(
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; connect-src 'self'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'",
  );
  expect(headers.get('cache-control')).toBe('no-store');
  expect(headers.get('referrer-policy')).toBe('no-referrer');
  expect(headers.get('x-content-type-options')).toBe('nosniff');
}
