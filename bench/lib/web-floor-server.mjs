/**
 * The floor server of the web benchmark (bench/web.mjs (f)): a plain `node:http` server that
 * answers `GET /dashboard/consents` with the very page Assent served (prebuilt, read from
 * FLOOR_PAGE_FILE) and the page headers of src/web/shared/html.ts, after the least a signed-in page can
 * do: the session cookie read from `Cookie`, hashed (SHA-256) and found in memory (as a kept web
 * session is), no statement, no rendering. Its rate is the most a page of that size can be served
 * at on this machine at that moment. Started as a child, like the real server, with the
 * event-loop probe preloaded:
 *
 *   FLOOR_PAGE_FILE=<file> FLOOR_COOKIE=<name=value> node --require ./bench/eld.cjs bench/lib/web-floor-server.mjs
 *
 * A request without the session cookie gets 303 to the sign-in page. `GET /readyz` answers 200
 * once listening. SIGTERM closes the server and exits 0.
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import http from 'node:http';

const page = readFileSync(process.env.FLOOR_PAGE_FILE);
const [cookieName, cookieValue] = (process.env.FLOOR_COOKIE ?? '').split('=');
const sha256 = (value) => createHash('sha256').update(value).digest('base64');
const sessions = new Map([[sha256(cookieValue), { userId: 'floor' }]]);
const HEADERS = {
  'content-type': 'text/html; charset=utf-8',
  'content-length': String(page.length),
  'content-security-policy':
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'",
  'x-frame-options': 'DENY',
  'cache-control': 'no-store',
  'referrer-policy': 'same-origin',
  'cross-origin-opener-policy': 'same-origin',
  'permissions-policy': 'camera=(), microphone=(), geolocation=()',
};

/** The session cookie's value in a `Cookie` header, or undefined. */
function sessionCookie(header) {
  for (const pair of (header ?? '').split(';')) {
    const eq = pair.indexOf('=');
    if (pair.slice(0, eq).trim() === cookieName) return pair.slice(eq + 1).trim();
  }
  return undefined;
}

const server = http.createServer((req, res) => {
  if (req.url === '/readyz') return res.end('ok');
  const cookie = sessionCookie(req.headers.cookie);
  if (req.url !== '/dashboard/consents' || !cookie || !sessions.has(sha256(cookie))) {
    res.writeHead(303, { location: '/dashboard/sign-in' });
    return res.end();
  }
  res.writeHead(200, HEADERS);
  res.end(page);
});
server.listen(Number(process.env.PORT), process.env.HOST ?? '127.0.0.1');
process.on('SIGTERM', () => {
  server.close();
  server.closeAllConnections();
  process.exit(0);
});
