/**
 * Opens an activity (src/platform/core/activity.ts) around each request's handler: `console` under `/console`, else
 * `api`, with the request's ID and client IP, for the audit log (docs/audit.md "Entries").
 */
import type { FastifyInstance } from 'fastify';
import { runInActivity } from '../core/activity.js';

/**
 * Adds the hook. It runs at `preHandler`, after the body is read: the body's stream events run in the socket's async
 * context, not the request's, so an activity opened earlier would not reach the handler.
 * @param app - the root instance, before any route is registered.
 */
export function installActivity(app: FastifyInstance): void {
  app.addHook('preHandler', (request, _reply, done) => {
    const path = request.url;
    const source =
      path === '/console' || path.startsWith('/console/') || path.startsWith('/console?') ? 'console' : 'api';
    runInActivity({ source, requestId: request.id, clientIp: request.ip }, done);
  });
}
