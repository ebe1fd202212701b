/**
 * The web front ends' static files (docs/web.md "How it is built"): htmx from its npm package, and
 * Assent's page script and stylesheet, served from this origin under names that carry a hash of their content, so
 * that they are cached for a year (`immutable`) and a new version is a new URL. Nothing is fetched
 * from another origin: no CDN, no web font, no analytics.
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { PAGE_SCRIPT } from './page-script.js';
import { PASSKEY_SCRIPT } from './passkey-script.js';
import { STYLESHEET } from './styles.js';

/** One served file. */
export interface Asset {
  /** The hashed file name, e.g. `htmx.3f2a….js`. */
  name: string;
  body: string;
  type: string;
}

const hash = (text: string) => createHash('sha256').update(text, 'utf8').digest('base64url').slice(0, 16);

function asset(stem: string, ext: 'js' | 'css', body: string): Asset {
  const type = ext === 'js' ? 'text/javascript; charset=utf-8' : 'text/css; charset=utf-8';
  return { name: `${stem}.${hash(body)}.${ext}`, body, type };
}

const require = createRequire(import.meta.url);

/**
 * The files, by role. htmx 2 (pinned): in-place updates and polling; the page script
 * (`page-script.ts`): the consent rows' save feedback on htmx's events.
 */
export const ASSETS = {
  htmx: asset('htmx', 'js', readFileSync(require.resolve('htmx.org/dist/htmx.min.js'), 'utf8')),
  page: asset('page', 'js', PAGE_SCRIPT),
  css: asset('assent', 'css', STYLESHEET),
  // WebAuthn in the browser (docs/security.md "Passkeys"): @simplewebauthn/browser's UMD bundle (pinned), and Assent's
  // script that runs it for the forms marked data-passkey (`passkey-script.ts`); only the pages with such forms load them.
  webauthn: asset(
    'webauthn',
    'js',
    // The package exports no subpath: its bundle is found beside its CommonJS entry.
    readFileSync(join(dirname(require.resolve('@simplewebauthn/browser')), '../dist/bundle/index.umd.min.js'), 'utf8'),
  ),
  passkey: asset('passkey', 'js', PASSKEY_SCRIPT),
} as const;

/** The files by hashed name, for the route. */
export const ASSETS_BY_NAME: ReadonlyMap<string, Asset> = new Map(Object.values(ASSETS).map((a) => [a.name, a]));

/** The URL path prefix of the files. */
export const ASSET_PREFIX = '/web/assets/';

/** A file's URL path. */
export const assetUrl = (a: Asset) => `${ASSET_PREFIX}${a.name}`;
