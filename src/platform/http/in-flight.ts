/**
 * Shutdown waits for every request handler, including those whose client has gone.
 *
 * Fastify's `close` resolves once the sockets are closed. A handler whose client disconnected
 * (its socket already gone) may still be running then, for example in the middle of a login's
 * argon2 verification. If the store closed under it, its next query would fail and be logged as an
 * unhandled error. A graceful shutdown lets in-flight requests finish (docs/operations.md, `assent serve`).
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';

declare module 'fastify' {
  interface FastifyInstance {
    /** The requests whose handlers still run (`HandlersInFlight.running`); set by `buildApp`. */
    requestsInFlight(): ReturnType<HandlersInFlight['running']>;
  }
}

/** What `trackHandlers` gives: a promise of the moment no request handler is left running. */
export interface HandlersInFlight {
  /** Resolves when no counted request is left (at once when none is). */
  drained(): Promise<void>;
  /**
   * The requests still counted, for the log line of a shutdown that has to be forced: method, route
   * pattern (never the URL, which may carry a token or personal data) and age in milliseconds.
   */
  running(): Array<{ method: string; route: string; ageMs: number }>;
}

/**
 * Counts requests from `onRequest` until their reply is produced (`onSend`, which also runs for a
 * client that has gone, unlike `onResponse`). Call it before any plugin is registered, so that the
 * hooks reach every route; then add `onClose` → `drained()` last, because Fastify runs `onClose`
 * hooks in the reverse order of their addition, and the wait must come before the hooks that
 * release what handlers use. The process's force timer (`ASSENT_SHUTDOWN_GRACE_SECONDS`, `serve.ts`) bounds a handler that
 * never replies.
 * @param app - the root instance.
 */
export function trackHandlers(app: FastifyInstance): HandlersInFlight {
  // The start time of each counted request (milliseconds since the epoch).
  const open = new Map<FastifyRequest, number>();
  let count = 0;
  let waiting: Array<() => void> = [];
  const finish = (request: FastifyRequest) => {
    if (!open.delete(request)) return;
    count -= 1;
    if (count === 0) {
      for (const resolve of waiting) resolve();
      waiting = [];
    }
  };
  // Callback-style hooks: no promise per request on the hot paths.
  app.addHook('onRequest', (request, _reply, done) => {
    open.set(request, Date.now());
    count += 1;
    done();
  });
  app.addHook('onSend', (request, _reply, payload, done) => {
    finish(request);
    done(null, payload);
  });
  // A reply that skipped `onSend` (a hijacked one) still ends here.
  app.addHook('onResponse', (request, _reply, done) => {
    finish(request);
    done();
  });
  return {
    drained: () => (count === 0 ? Promise.resolve() : new Promise<void>((resolve) => waiting.push(resolve))),
    running: () =>
      [...open].map(([request, since]) => ({
        method: request.method,
        route: request.routeOptions.url ?? '(no route)',
        ageMs: Date.now() - since,
      })),
  };
}
