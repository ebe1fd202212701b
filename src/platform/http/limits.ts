/**
 * Fastify options that bound what one request may cost before any route runs: body size, time to
 * send the request, and the answers to errors found by Node's parser and Fastify's router
 * (OWASP API Security Top 10 2023, API4 "Unrestricted Resource Consumption"). See docs/configuration.md
 * "Configuration" (`ASSENT_REQUEST_TIMEOUT_SECONDS`).
 */
import type { FastifyServerOptions } from 'fastify';
import { clientErrorHandler, frameworkErrors } from './framework-errors.js';

/** Largest request body of a JSON or form route (bytes). Image uploads have their own limit (src/identity/images/form.ts). */
export const BODY_LIMIT_BYTES = 1024 * 1024;

/**
 * @param requestTimeoutSeconds - longest time to receive one request, headers and body (seconds).
 * @returns options for `Fastify(...)`.
 */
export function requestLimitOptions(requestTimeoutSeconds: number): Partial<FastifyServerOptions> {
  const requestTimeout = requestTimeoutSeconds * 1000;
  return {
    bodyLimit: BODY_LIMIT_BYTES,
    // Threat: slowloris-style requests holding sockets open; Node answers 408 and closes them.
    requestTimeout,
    // Node checks the timeouts on this period (ms); its default of 30 s would let a short timeout run long.
    http: {
      requestTimeout,
      headersTimeout: requestTimeout,
      connectionsCheckingInterval: Math.min(30_000, Math.max(250, requestTimeout / 4)),
    },
    clientErrorHandler,
    frameworkErrors,
  } as Partial<FastifyServerOptions>;
}
