/**
 * The web front ends' error handler (a web-plugin hook, so the JSON API keeps its own): the same
 * typed errors as the API, shown as a page (a fragment for htmx requests) with the same status and
 * message; anything else is a fixed message, logged without detail reaching the page (ASVS 5.0 V16.5.1).
 */
import type { FastifyError, FastifyInstance } from 'fastify';
import { isDatabaseUnavailable } from '../db/unavailable.js';
import { HttpError } from '../http/errors.js';
import { sendPage } from './html.js';
import { Layout } from './layout.js';

/** Fixed texts by status, for errors that are not Assent's own. */
const TEXTS: Record<number, string> = {
  400: 'The form could not be read. Check what you entered and try again.',
  404: 'There is nothing here.',
  413: 'What you sent is too large.',
  415: 'What you sent is not a form this page reads.',
};

/**
 * Installs the handler on the web plugin's instance.
 * @param app - the web plugin's instance.
 */
export function installWebErrors(app: FastifyInstance): void {
  app.setErrorHandler((error: FastifyError | HttpError, request, reply) => {
    let status: number;
    let message: string;
    if (error instanceof HttpError) {
      status = error.statusCode;
      message = error.message;
      reply.headers(error.headers);
    } else if ((error as FastifyError).validation) {
      status = 400;
      message = TEXTS[400]!;
    } else if (isDatabaseUnavailable(error)) {
      status = 503;
      message = 'Assent cannot reach its database right now. Try again in a moment.';
      reply.header('Retry-After', '5');
    } else if (error.statusCode && error.statusCode >= 400 && error.statusCode < 500) {
      status = error.statusCode;
      message = TEXTS[status] ?? TEXTS[400]!;
    } else {
      request.log.error({ err: error }, 'web page failed');
      status = 500;
      message = 'Something went wrong on our side.';
    }
    const htmx = request.headers['hx-request'] === 'true';
    const body = (
      <p class="error" role="alert">
        {message}
      </p>
    );
    // htmx shows it in the page's alert area (`#flash`, layout.tsx), leaving the form in place.
    if (htmx)
      return sendPage(reply.header('HX-Retarget', '#flash').header('HX-Reswap', 'innerHTML'), body, status, true);
    return sendPage(
      reply,
      <Layout title="Error" app="Privacy dashboard" home="/dashboard">
        <h1>{status === 401 ? 'Signed out' : 'That did not work'}</h1>
        {body}
        <p>
          <a href="/dashboard">Back to the dashboard</a>
        </p>
      </Layout>,
      status,
    );
  });
}
