/**
 * The web front ends' error and not-found answers (web-plugin handlers, so the JSON API keeps its
 * own; docs/web.md "CSRF and other browser threats"): the same typed errors as the API, shown as a
 * page of the front end the path belongs to (a fragment for htmx requests) with the same status and
 * message; anything else is a fixed message, logged without detail reaching the page (ASVS 5.0 V16.5.1).
 */
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { AssentError } from '../../platform/core/errors.js';
import { isDatabaseUnavailable } from '../../platform/db/unavailable.js';
import { httpHeadersOf, httpStatusOf, logError } from '../../platform/http/errors.js';
import { safeErrorMessage } from '../../platform/util/errors.js';
import type { WebRouteConfig } from './guard.js';
import { PAGE_HEADERS, sendPage } from './html.js';
import { Layout } from './layout.js';

/** Fixed texts by status, for errors that are not Assent's own. */
const TEXTS: Record<number, string> = {
  400: 'The form could not be read. Check what you entered and try again.',
  404: 'There is nothing here.',
  413: 'What you sent is too large.',
  415: 'What you sent is not a form this page reads.',
};

/** A web front end as its pages name it: the header's brand and the home path. */
export interface FrontEnd {
  /** "Privacy dashboard" or "Console". */
  app: string;
  /** `/dashboard` or `/console`. */
  home: string;
  /** The link back, e.g. "Back to the console". */
  back: string;
}

const CONSOLE: FrontEnd = { app: 'Console', home: '/console', back: 'Back to the console' };
const DASHBOARD: FrontEnd = { app: 'Privacy dashboard', home: '/dashboard', back: 'Back to the dashboard' };

/**
 * The front end a request's path belongs to (docs/web.md): `/console` and below is the console,
 * anything else of the web plugin (the dashboard, the shared assets) the privacy dashboard.
 * @param url - the request's URL (path and query).
 */
export function frontEndOf(url: string): FrontEnd {
  return url === '/console' || url.startsWith('/console/') || url.startsWith('/console?') ? CONSOLE : DASHBOARD;
}

/** The last-resort page when rendering the error page itself failed: fixed text, no detail. */
const FALLBACK =
  '<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Error · Assent</title></head>' +
  '<body><main><h1>That did not work</h1><p role="alert">Something went wrong on our side.</p></main></body></html>';

/** The status and the text the page shows for an error; logs what is not the caller's fault. */
function describe(error: FastifyError | AssentError, request: FastifyRequest, reply: FastifyReply) {
  if (error instanceof AssentError) {
    logError(request, error);
    reply.headers(httpHeadersOf(error));
    return { status: httpStatusOf(error), message: error.message };
  }
  if ((error as FastifyError).validation) return { status: 400, message: TEXTS[400]! };
  if (isDatabaseUnavailable(error)) {
    reply.header('Retry-After', '5');
    return { status: 503, message: 'Assent cannot reach its database right now. Try again in a moment.' };
  }
  if (error.statusCode && error.statusCode >= 400 && error.statusCode < 500)
    return { status: error.statusCode, message: TEXTS[error.statusCode] ?? TEXTS[400]! };
  // The driver's message without a query's parameters (hashes, tokens), as the API's handler logs it.
  request.log.error({ err: { type: error.name, message: safeErrorMessage(error) } }, 'web page failed');
  return { status: 500, message: 'Something went wrong on our side.' };
}

/**
 * Answers an error as a page of the request's front end.
 * @param status - HTTP status; `message` is shown as is (the caller's text or a fixed one).
 */
function sendErrorPage(request: FastifyRequest, reply: FastifyReply, status: number, message: string) {
  const htmx = request.headers['hx-request'] === 'true';
  const body = (
    <p class="error" role="alert">
      {message}
    </p>
  );
  // htmx shows it in the page's alert area (`#flash`, layout.tsx), leaving the form in place.
  if (htmx) return sendPage(reply.header('HX-Retarget', '#flash').header('HX-Reswap', 'innerHTML'), body, status, true);
  const front = frontEndOf(request.url);
  return sendPage(
    reply,
    <Layout title={status === 404 ? 'Not found' : 'Error'} app={front.app} home={front.home}>
      <h1>{status === 401 ? 'Signed out' : status === 404 ? 'Not found' : 'That did not work'}</h1>
      {body}
      <p>
        <a href={front.home}>{front.back}</a>
      </p>
    </Layout>,
    status,
  );
}

/** Whether an error may be about what a form's fields hold: a schema's refusal, or a service's 4xx. */
function isFormError(error: FastifyError | AssentError): boolean {
  if (error instanceof AssentError) return httpStatusOf(error) === 400 || httpStatusOf(error) === 409;
  return Boolean((error as FastifyError).validation);
}

/**
 * Drops what the failed route had set on the reply before the error page is sent: a header it set
 * (a `Location` whose value Node.js refused, a `Content-Disposition`) must not reach, or break, the
 * error page. Kept: the session cookie a sign-in just issued (the session exists), and CORS's
 * `Vary` and `Access-Control-*`, set before any route ran.
 */
function clearRouteHeaders(reply: FastifyReply): void {
  for (const name of Object.keys(reply.getHeaders()))
    if (name !== 'set-cookie' && name !== 'vary' && !name.startsWith('access-control-')) reply.removeHeader(name);
}

/**
 * Installs the error handler on the web plugin's instance: every error of a web route answers a
 * page (or an htmx fragment), never the framework's JSON body nor an internal message.
 * @param app - the web plugin's instance.
 */
export function installWebErrors(app: FastifyInstance): void {
  app.setErrorHandler(async (error: FastifyError | AssentError, request, reply) => {
    try {
      clearRouteHeaders(reply);
      const refused = (request.routeOptions.config as WebRouteConfig).refused;
      // A form the schema or its service refused: its page again, with what was typed and the error by its field.
      const page = refused && isFormError(error) ? await refused(request, reply, error) : null;
      if (page) return page;
      clearRouteHeaders(reply);
      const { status, message } = describe(error, request, reply);
      return sendErrorPage(request, reply, status, message);
    } catch (failed) {
      // Threat: a failure while answering an error falling through to the framework's body, which names internals.
      request.log.error({ err: { type: (failed as Error).name } }, 'web error page failed');
      clearRouteHeaders(reply);
      return reply.code(500).headers(PAGE_HEADERS).send(FALLBACK);
    }
  });
}

/**
 * Installs the not-found answer of one front end, on a child instance registered with its prefix
 * (`/dashboard` or `/console`): an unknown path or method below it answers that front end's 404 page,
 * not the API's JSON 404 (Fastify routes a prefix's unknown paths to its plugin's not-found handler).
 * @param app - the child instance, registered with `prefix`.
 */
export function installWebNotFound(app: FastifyInstance): void {
  app.setNotFoundHandler((request, reply) => sendErrorPage(request, reply, 404, TEXTS[404]!));
}
