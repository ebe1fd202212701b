/**
 * The page shell of the web front ends: language, title, the stylesheet, htmx and the page script
 * (`page-script.ts`) from this origin,
 * a skip link, the navigation with the current page marked, and the sign-out form. htmx is told
 * not to add inline styles or evaluate anything (the CSP forbids both), and sends the CSRF token
 * in a header on each of its requests.
 */
import type { ComponentChildren } from 'preact';
import { ASSETS, assetUrl } from './assets.js';

/** htmx's configuration (htmx 2 "Configuring htmx"): nothing that needs `unsafe-inline` or `unsafe-eval`. */
const HTMX_CONFIG = JSON.stringify({
  includeIndicatorStyles: false,
  allowEval: false,
  allowScriptTags: false,
  selfRequestsOnly: true,
  historyCacheSize: 0,
  // Errors are swapped too (into `#flash`, as the server retargets them), not dropped silently.
  responseHandling: [
    { code: '204', swap: false },
    { code: '[23]..', swap: true },
    { code: '[45]..', swap: true, error: true },
  ],
});

/** A navigation entry. */
export interface NavItem {
  href: string;
  label: string;
}

/** What the shell shows. */
export interface LayoutProps {
  /** The page's title (also its `<h1>`, given by the page). */
  title: string;
  /** "Privacy dashboard" or "Console". */
  app: string;
  /** The app's home path. */
  home: string;
  nav?: NavItem[];
  /** The current path, marked `aria-current="page"` in the navigation. */
  current?: string;
  /** Set when signed in: the sign-out form and htmx's CSRF header carry it. */
  csrfToken?: string;
  /** Where the sign-out form posts. */
  signOutAction?: string;
  /** The page has passkey forms: it loads the WebAuthn scripts (`passkey-script.ts`). */
  passkeys?: boolean;
  children: ComponentChildren;
}

/** The whole document. */
export function Layout(props: LayoutProps) {
  const { title, app, home, nav = [], current, csrfToken, signOutAction, passkeys, children } = props;
  return (
    <html lang="en">
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <meta name="htmx-config" content={HTMX_CONFIG} />
        <title>{`${title} · ${app} · Assent`}</title>
        <link rel="stylesheet" href={assetUrl(ASSETS.css)} />
        <script src={assetUrl(ASSETS.htmx)} defer />
        <script src={assetUrl(ASSETS.page)} defer />
        {passkeys && <script src={assetUrl(ASSETS.webauthn)} defer />}
        {passkeys && <script src={assetUrl(ASSETS.passkey)} defer />}
      </head>
      <body hx-headers={csrfToken ? JSON.stringify({ 'x-csrf-token': csrfToken }) : undefined}>
        <a class="skip" href="#main">
          Skip to content
        </a>
        <header class="top">
          <a class="brand" href={home}>
            Assent · {app}
          </a>
          {nav.length > 0 && (
            <nav aria-label="Main">
              <ul>
                {nav.map((item) => (
                  <li key={item.href}>
                    <a href={item.href} aria-current={item.href === current ? 'page' : undefined}>
                      {item.label}
                    </a>
                  </li>
                ))}
              </ul>
            </nav>
          )}
          {csrfToken && signOutAction && (
            <form method="post" action={signOutAction}>
              <input type="hidden" name="_csrf" value={csrfToken} />
              <button type="submit" class="secondary">
                Sign out
              </button>
            </form>
          )}
        </header>
        <main id="main">
          <div id="flash" aria-live="polite" />
          {children}
        </main>
      </body>
    </html>
  );
}

/** A hidden CSRF field for a form. */
export function Csrf({ token }: { token: string }) {
  return <input type="hidden" name="_csrf" value={token} />;
}
