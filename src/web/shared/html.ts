/**
 * Answering HTML from the web front ends (docs/web.md "How it is built"): server-rendered Preact
 * components turned into a string (text and attributes escaped by the renderer, so a purpose's
 * name is shown as text, never run), with the headers every page carries.
 */
import type { FastifyReply } from 'fastify';
import type { VNode } from 'preact';
import { renderToString } from 'preact-render-to-string';

/**
 * The pages' Content-Security-Policy (ASVS 5.0 V3.4.3): script, style, images and requests from
 * this origin only, no inline script or `eval`, forms posted only here, never framed.
 */
export const WEB_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "form-action 'self'",
  "frame-ancestors 'none'",
  "base-uri 'none'",
].join('; ');

/**
 * Headers of every web page. Threat: clickjacking (never framed), a page or its CSRF token kept in
 * a shared cache or sent onward to another origin in a Referer (no-store, same-origin). Not
 * `no-referrer`: under it a browser sends `Origin: null` with every form post (Fetch standard,
 * "append a request `Origin` header"), which the web guard's origin check refuses.
 */
export const PAGE_HEADERS: Readonly<Record<string, string>> = {
  'Content-Type': 'text/html; charset=utf-8',
  'Content-Security-Policy': WEB_CSP,
  'X-Frame-Options': 'DENY',
  'Cache-Control': 'no-store',
  'Referrer-Policy': 'same-origin',
  'Cross-Origin-Opener-Policy': 'same-origin',
  'Permissions-Policy': 'camera=(), microphone=(), geolocation=()',
};

/**
 * Sends a page.
 * @param reply - the reply.
 * @param page - the whole document (a `Layout` or a fragment for htmx).
 * @param status - HTTP status, 200 unless given.
 * @param fragment - true for an htmx fragment (no doctype).
 */
export function sendPage(reply: FastifyReply, page: VNode, status = 200, fragment = false): FastifyReply {
  // Encoded once, here: a string would be scanned for its Content-Length and encoded again by the socket write.
  const body = Buffer.from((fragment ? '' : '<!doctype html>') + renderToString(page));
  return reply.code(status).headers(PAGE_HEADERS).send(body);
}

/**
 * Redirects after a form post (303 See Other, so the browser follows with GET: the
 * Post/Redirect/Get pattern). For an htmx request, `HX-Redirect` instead.
 * @param to - a path of this origin.
 */
export function seeOther(reply: FastifyReply, to: string, htmx: boolean): FastifyReply {
  if (htmx) return reply.code(204).header('HX-Redirect', to).header('Cache-Control', 'no-store').send();
  return reply.code(303).header('Location', to).header('Cache-Control', 'no-store').send();
}
