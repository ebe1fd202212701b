/**
 * The web benchmark's render floor: the "My consents" page rendered in a loop in this process, one
 * thread, no HTTP, no database: `'<!doctype html>' + renderToString(ConsentsPage(…))` exactly as
 * `sendPage` (src/web/shared/html.ts) does, by the compiled components of dist/, on the record the JSON API
 * answered and the CSRF token the served page carries, so that the rendered page can be compared
 * with the served one byte for byte.
 */
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { ROOT } from './config.mjs';
import { r1, r2 } from './util.mjs';

const dist = (file) => pathToFileURL(path.join(ROOT, 'dist', file)).href;

/**
 * Renders the page for `seconds` (after 200 unmeasured renders).
 * @param record - the JSON answer of `GET …/consents` (the page's data: `recordBody(…, true)`).
 * @param orgName - the organisation's name, as the page shows it.
 * @param servedPage - the body `GET /dashboard/consents` answered; its CSRF token is reused.
 * @returns pages/s, CPU ms per page, the page's bytes and whether it equals the served page.
 */
export async function renderFloor(record, orgName, servedPage, seconds) {
  const { ConsentsPage } = await import(dist('web/dashboard/consents.js'));
  const { renderToString } = await import('preact-render-to-string');
  const csrfToken = /name="_csrf" value="([^"]+)"/.exec(servedPage)?.[1] ?? '';
  const render = () => `<!doctype html>${renderToString(ConsentsPage({ orgs: [{ orgName, record }], csrfToken }))}`;
  for (let i = 0; i < 200; i++) render();
  const page = render();
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  const until = t0 + seconds * 1000;
  let pages = 0;
  while (performance.now() < until) {
    for (let i = 0; i < 20; i++) render();
    pages += 20;
  }
  const elapsed = (performance.now() - t0) / 1000;
  const cpu = process.cpuUsage(cpu0);
  return {
    seconds: r2(elapsed),
    pages,
    perSecond: r1(pages / elapsed),
    cpuMsPerPage: r2((cpu.user + cpu.system) / 1000 / pages),
    pageBytes: Buffer.byteLength(page),
    identicalToServed: page === servedPage,
  };
}
