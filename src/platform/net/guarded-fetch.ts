/**
 * A WHATWG `fetch` for openid-client (`client.customFetch`) that goes through the SSRF guard of
 * `outbound.ts` (OWASP ASVS 5.0 V1.3.6, V13.2.4): only the configured host, every resolved address
 * checked, the connection pinned to the checked address, no redirects followed, a 5 s limit, at
 * most 1 MiB read. The answer is handed to openid-client to parse; Assent never shows it to its
 * own caller.
 */
import http from 'node:http';
import https from 'node:https';
import { checkTarget, DEFAULT_TIMEOUT_MS, MAX_ANSWER_BYTES, OutboundError, type OutboundPolicy } from './outbound.js';
import { pinnedLookup } from './resolve.js';

/** The subset of `RequestInit` that openid-client passes. */
export interface GuardedInit {
  method?: string;
  headers?: HeadersInit;
  body?: string | URLSearchParams | Uint8Array | null;
  signal?: AbortSignal | null;
  redirect?: string;
}

/** Statuses a WHATWG Response must not carry a body with. */
const NULL_BODY = new Set([101, 204, 205, 304]);

function bodyBytes(body: GuardedInit['body']): Buffer | undefined {
  if (body === undefined || body === null) return undefined;
  if (typeof body === 'string') return Buffer.from(body);
  if (body instanceof URLSearchParams) return Buffer.from(body.toString());
  return Buffer.from(body);
}

/**
 * Sends one request under `policy` and answers a WHATWG `Response`.
 *
 * @param url - the configured URL (string or URL).
 * @param init - method, headers, body (string, form, bytes) and an abort signal.
 * @param policy - allowed http hosts, time limit (default 5000 ms), DNS servers.
 * @returns the answer; a 3xx is returned as it is, never followed (RFC 9700 §4.11: no open redirects).
 * @throws {OutboundError} `blocked` (URL or address refused before any connection), `timeout`
 *   (no complete answer within the limit), `network` (refused connection, answer over 1 MiB).
 */
export async function guardedFetch(url: string | URL, init: GuardedInit, policy: OutboundPolicy): Promise<Response> {
  const { target, address } = await checkTarget(String(url), policy);
  const limitMs = policy.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const payload = bodyBytes(init.body);
  const headers: Record<string, string> = {};
  new Headers(init.headers).forEach((value, key) => {
    headers[key] = value;
  });
  if (init.body instanceof URLSearchParams && !headers['content-type'])
    headers['content-type'] = 'application/x-www-form-urlencoded;charset=UTF-8';
  if (payload) headers['content-length'] = String(payload.length);
  const client = target.protocol === 'https:' ? https : http;
  return new Promise<Response>((resolve, reject) => {
    const req = client.request(target, {
      method: init.method ?? 'GET',
      agent: false,
      // Connect only to the address checked above: a second lookup could be rebound.
      lookup: pinnedLookup(address),
      headers,
    });
    let settled = false;
    const fail = (err: OutboundError) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      reject(err);
      req.destroy();
    };
    // A provider that accepts the connection and never answers must not hold the sign-in open.
    const timer = setTimeout(() => fail(new OutboundError('no answer within the time limit', 'timeout')), limitMs);
    init.signal?.addEventListener(
      'abort',
      () => fail(new OutboundError('no answer within the time limit', 'timeout')),
      { once: true },
    );
    if (init.signal?.aborted) fail(new OutboundError('no answer within the time limit', 'timeout'));
    req.on('error', (err) =>
      fail(new OutboundError(`network error (${(err as NodeJS.ErrnoException).code ?? 'unknown'})`, 'network')),
    );
    req.on('response', (res) => {
      const chunks: Buffer[] = [];
      let read = 0;
      res.on('data', (chunk: Buffer) => {
        read += chunk.length;
        // An endless answer must not exhaust memory: stop at 1 MiB.
        if (read > MAX_ANSWER_BYTES) return fail(new OutboundError('answer larger than 1 MiB', 'network'));
        chunks.push(chunk);
      });
      res.on('error', () => fail(new OutboundError('answer cut off', 'network')));
      res.on('end', () => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        const status = res.statusCode ?? 0;
        if (status < 200 || status > 599) return reject(new OutboundError(`unexpected status ${status}`, 'network'));
        const out = new Headers();
        for (const [key, value] of Object.entries(res.headers)) {
          if (Array.isArray(value)) for (const v of value) out.append(key, v);
          else if (value !== undefined) out.set(key, value);
        }
        resolve(new Response(NULL_BODY.has(status) ? null : Buffer.concat(chunks), { status, headers: out }));
      });
    });
    req.end(payload);
  });
}
