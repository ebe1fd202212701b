/**
 * Request body parsers (docs/api.md "Bodies"):
 * - an empty body is an empty body whatever its `Content-Type` (clients send body-less POSTs
 *   labelled `application/x-www-form-urlencoded` or `application/json`); the route's schema then
 *   decides whether a body was required;
 * - `application/x-www-form-urlencoded` bodies are parsed on the logins, the token refresh,
 *   logout and the web front ends' forms (`web` operations) only, as OAuth 2.0 clients send them (RFC 6749 §4.3.2, §6); keys are then matched
 *   without regard to case like JSON keys (`body-keys.ts`);
 * - any other non-empty body of a type no route reads is a 415.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { InvalidRequest, UnsupportedMediaType } from '../core/errors.js';
import { ACCESS_POLICY, type OperationConfig } from './policy.js';

/**
 * Operations whose body may be form-encoded: the logins and the
 * token endpoints (docs/api.md "Identity management"; RFC 6749 §4.3.2, §6, RFC 7009 §2.1), and the wallet's response
 * (OpenID4VP 1.0 §8.2 `direct_post`), and the SAML ACS and SingleLogoutService (SAML 2.0 Bindings §3.5, HTTP-POST).
 */
export const FORM_OPERATIONS: ReadonlySet<string> = new Set([
  'users.login',
  'users.login.old',
  'users.admin.login',
  'users.token.refresh',
  'users.logout',
  'wallet.oid4vp.response',
  'federation.saml.acs',
  'federation.saml.logout-callback',
]);

const POISON_KEYS = new Set(['__proto__', 'constructor', 'prototype']);

const UNSUPPORTED = 'Unsupported media type: send application/json';
const unsupported = () => new UnsupportedMediaType(UNSUPPORTED);
// Threat: a client streaming an endless body of a type nobody reads; the socket closes after the answer.
const unsupportedAndClose = () => new UnsupportedMediaType(UNSUPPORTED, { closeConnection: true });

/**
 * Parses an `application/x-www-form-urlencoded` body (WHATWG URL "application/x-www-form-urlencoded
 * parsing"). A key sent twice becomes an array, which the route's schema refuses with a 400.
 * @param text - the body as received.
 * @returns a plain object of string (or string array) values.
 * @throws {InvalidRequest} for the keys `__proto__`, `constructor` and `prototype`, refused as in JSON bodies.
 */
export function parseForm(text: string): Record<string, string | string[]> {
  const out: Record<string, string | string[]> = Object.create(null);
  for (const [key, value] of new URLSearchParams(text)) {
    // Threat: prototype poisoning of the objects later built from the body (OWASP ASVS 5.0 V1.5, safe deserialisation).
    if (POISON_KEYS.has(key))
      throw new InvalidRequest(`Invalid request: the form key "${key}" is not accepted`, 'invalid_request');
    const previous = out[key];
    out[key] = previous === undefined ? value : [...(Array.isArray(previous) ? previous : [previous]), value];
  }
  return { ...out };
}

function formAllowed(request: FastifyRequest): boolean {
  const operation = (request.routeOptions.config as OperationConfig | undefined)?.operation;
  // The web front ends' forms: their guard checks origin and CSRF token (src/web/shared/guard.ts).
  return operation !== undefined && (FORM_OPERATIONS.has(operation) || ACCESS_POLICY[operation].credential === 'web');
}

/**
 * Replaces the JSON parser (an empty body is no body) and adds the form and catch-all parsers.
 * Body size stays bounded by the app's `bodyLimit`; prototype poisoning is refused as before.
 * @param app - the root Fastify instance (parsers are inherited by every plugin).
 */
export function installBodyParsers(app: FastifyInstance): void {
  const json = app.getDefaultJsonParser('error', 'error');
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (request, body, done) => {
    if ((body as string).length === 0) return done(null, undefined);
    json(request, body as string, done);
  });
  app.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string' }, (request, body, done) => {
    const text = body as string;
    if (text.length === 0) return done(null, undefined);
    // Threat: form posts are "simple" cross-origin requests; only the OAuth endpoints read them.
    if (!formAllowed(request)) return done(unsupported(), undefined);
    try {
      done(null, parseForm(text));
    } catch (err) {
      done(err as Error, undefined);
    }
  });
  // Anything else: empty is no body; the first byte of a non-empty body is enough to refuse it,
  // so an unsupported body is never read to its end.
  app.addContentTypeParser('*', (_request, payload, done) => {
    let settled = false;
    const settle = (err: Error | null) => {
      if (settled) return;
      settled = true;
      payload.removeListener('data', onData);
      done(err, undefined);
    };
    const onData = (chunk: Buffer) => {
      if (chunk.length > 0) settle(unsupportedAndClose());
    };
    payload.on('data', onData);
    payload.once('end', () => settle(null));
    payload.once('error', (err) => settle(err));
  });
}
