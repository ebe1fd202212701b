/**
 * Answers to errors raised before any route runs, in the same `{"Code", "Message"}` JSON as every
 * other error (docs/api.md "Errors"): Node's HTTP parser (malformed requests, 414/431 overflows, the
 * 408 request timeout) and Fastify's router (bad percent-encoding, over-long path parameters).
 * None of them echoes the request back (ASVS 5.0 V16.5.1).
 */
import http from 'node:http';
import type { Socket } from 'node:net';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { errorBody } from './errors.js';

/** A request line longer than this (bytes) makes a parser overflow a 414 rather than a 431. */
export const URL_LIMIT_BYTES = 8 * 1024;

/**
 * Status and message of a client error found by Node's HTTP parser (`clientError` event).
 * An overflow whose request line is unfinished, or itself longer than `URL_LIMIT_BYTES`, is an
 * over-long URL (414, RFC 9110 §15.5.15); otherwise it is a 431 (RFC 6585 §5).
 * @param err - the parser's error (`code` as in Node's `HPE_*` / `ERR_HTTP_*`).
 */
export function clientErrorStatus(err: NodeJS.ErrnoException & { rawPacket?: Buffer }): [number, string] {
  if (err.code === 'ERR_HTTP_REQUEST_TIMEOUT') return [408, 'The request was not received in time'];
  if (err.code === 'HPE_HEADER_OVERFLOW' || err.code === 'HPE_URI_TOO_LONG') {
    const lineEnd = err.rawPacket?.indexOf('\r\n') ?? 0;
    if (err.code === 'HPE_URI_TOO_LONG' || lineEnd < 0 || lineEnd > URL_LIMIT_BYTES)
      return [414, 'The request URL is too long'];
    return [431, 'The request headers are too large'];
  }
  return [400, 'The request is not valid HTTP/1.1'];
}

/**
 * Fastify `clientErrorHandler`: writes the JSON error on the raw socket (when nothing of another
 * answer was written yet) and closes it, so a slow or malformed request never holds a connection.
 * Bound by Fastify to the root instance (`this`), whose logger it uses.
 * @param err - the parser's error.
 * @param socket - the client's socket.
 */
export function clientErrorHandler(this: FastifyInstance, err: NodeJS.ErrnoException, socket: Socket): void {
  if (err.code === 'ECONNRESET' || socket.destroyed) return;
  const [status, message] = clientErrorStatus(err);
  // Threat: the raw packet may carry Authorization headers or bodies; only the code and status are logged.
  this.log.debug({ code: err.code, status }, 'client error before routing');
  const body = JSON.stringify(errorBody(status, message, false));
  // Threat: corrupting an answer already under way; only a socket with no bytes of one gets ours.
  const answering = (socket as Socket & { _httpMessage?: { headersSent?: boolean } })._httpMessage?.headersSent;
  if (socket.writable && !answering) {
    socket.write(
      `HTTP/1.1 ${status} ${http.STATUS_CODES[status]}\r\nContent-Type: application/json; charset=utf-8\r\n` +
        `Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
    );
  }
  socket.destroy();
}

/**
 * Fastify `frameworkErrors`: router errors. Bad percent-encoding in the path is a 400; a path
 * parameter longer than the router's `maxParamLength` is a 414 (as Fastify decides it).
 * @param error - `FST_ERR_BAD_URL`, `FST_ERR_MAX_PARAM_LENGTH` or `FST_ERR_ASYNC_CONSTRAINT`.
 */
export function frameworkErrors(error: FastifyError, _request: FastifyRequest, reply: FastifyReply): void {
  const [status, message] =
    error.code === 'FST_ERR_MAX_PARAM_LENGTH'
      ? [414, 'A path segment of the request URL is too long']
      : error.code === 'FST_ERR_BAD_URL'
        ? [400, 'The request URL is not validly percent-encoded']
        : [400, 'Bad request'];
  reply
    .code(status)
    .type('application/json')
    .send(errorBody(status, message, false));
}
