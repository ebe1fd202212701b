/**
 * Requests Assent makes to URLs that an organisation admin configured (webhooks, the external
 * OpenID provider's and SAML IdP's endpoints and metadata, wallet credentials' status lists).
 * Server-side request forgery is the threat (OWASP ASVS 5.0
 * V1.3.6, V13.2.4): an admin must not be able to make Assent reach its own network. So every request
 * - goes only to the configured URL's host;
 * - resolves that host once, checks every address against loopback, private, link-local and the
 *   other special-use ranges, and connects only to an address it checked (the DNS lookup result is
 *   handed to the socket, so a second lookup cannot rebind the name);
 * - follows no redirects, times out after 5 s, and reads at most 1 MiB of the answer, which it
 *   never passes on to the caller.
 */
import http from 'node:http';
import https from 'node:https';
import ipaddr from 'ipaddr.js';
import { isPublicAddress, pinnedLookup, ResolveError, resolveChecked } from './resolve.js';

export { isPublicAddress };

/** Why an outbound request did not get an answer. */
export class OutboundError extends Error {
  override name = 'OutboundError';
  /**
   * @param message - our words, safe to store and show (never the remote body).
   * @param kind - `blocked` (policy refused the URL or address), `timeout`, `network`.
   */
  constructor(
    message: string,
    readonly kind: 'blocked' | 'timeout' | 'network',
  ) {
    super(message);
  }
}

/** What the operator allows. */
export interface OutboundPolicy {
  /** Hosts (lower case) that may be reached over plain http and at non-public addresses. */
  allowHttpHosts: readonly string[];
  /** Whole-request time limit (milliseconds); 5000 unless a caller needs less. */
  timeoutMs?: number;
  /**
   * DNS servers (`ip[:port]`) to resolve with (`ASSENT_DNS_SERVERS`); absent or empty means the system's `dns.lookup`.
   */
  dnsServers?: readonly string[];
}

/** The answer to an outbound request: its status and headers; the body is read (≤ 1 MiB) and dropped. */
export interface OutboundAnswer {
  status: number;
  /** The answer's headers, names in lower case (repeated ones joined with `, `). */
  headers: Record<string, string>;
}

/** Largest answer body read (bytes); the rest is cut off. */
export const MAX_ANSWER_BYTES = 1024 * 1024;
/** Whole-request time limit unless the policy says otherwise (milliseconds). */
export const DEFAULT_TIMEOUT_MS = 5000;

/**
 * Checks a configured URL against the policy without contacting it (used when it is saved):
 * absolute, no credentials, `https` (or `http` for an allowed host), and no literal loopback,
 * private, link-local or other special-use address unless the host is allowed (ASVS 5.0 V1.3.6).
 * @returns a reason to refuse it, or null when it is acceptable.
 */
export function urlProblem(raw: string, policy: OutboundPolicy): string | null {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return 'must be an absolute URL';
  }
  if (url.username || url.password) return 'must not carry credentials';
  const host = url.hostname.toLowerCase();
  const allowed = policy.allowHttpHosts.includes(host);
  if (url.protocol !== 'https:' && !(url.protocol === 'http:' && allowed)) return 'must be an https URL';
  const literal = host.replace(/^\[|\]$/g, '');
  // A literal private or metadata address needs no DNS to be refused: refuse it when saved.
  if (ipaddr.isValid(literal) && !allowed && !isPublicAddress(literal))
    return 'must not name a loopback, private, link-local or other special-use address';
  return null;
}

/**
 * Checks the URL and resolves its host under the policy (before any socket is opened).
 * @returns the parsed URL and the checked address to connect to.
 * @throws {OutboundError} `blocked` or `network`.
 */
export async function checkTarget(
  url: string,
  policy: OutboundPolicy,
): Promise<{ target: URL; address: { address: string; family: number } }> {
  const problem = urlProblem(url, policy);
  if (problem) throw new OutboundError(`URL ${problem}`, 'blocked');
  const target = new URL(url);
  const allowed = policy.allowHttpHosts.includes(target.hostname.toLowerCase());
  try {
    const [first] = await resolveChecked(target.hostname, allowed, policy.dnsServers);
    return { target, address: first! };
  } catch (err) {
    if (err instanceof ResolveError) throw new OutboundError(err.message, err.kind);
    throw err;
  }
}

const agents = {
  'http:': new http.Agent({ keepAlive: true, maxSockets: 64 }),
  'https:': new https.Agent({ keepAlive: true, maxSockets: 64 }),
};

/**
 * POSTs `body` to `url` under the policy.
 * @param url - the configured URL.
 * @param body - the request body (bytes or UTF-8 text).
 * @param headers - request headers; `Content-Length` is set here.
 * @returns the answer's status; any status is an answer (the caller decides what success is).
 * @throws {OutboundError} when the policy refuses the URL or address, on timeout, or on a network error.
 */
export async function postOutbound(
  url: string,
  body: string,
  headers: Record<string, string>,
  policy: OutboundPolicy,
): Promise<OutboundAnswer> {
  const { target, address } = await checkTarget(url, policy);
  const client = target.protocol === 'https:' ? https : http;
  return new Promise((resolve, reject) => {
    const req = client.request(target, {
      method: 'POST',
      agent: agents[target.protocol as 'http:' | 'https:'],
      // Connect only to the address checked above: a second lookup could be rebound.
      lookup: pinnedLookup(address),
      headers: { ...headers, 'content-length': String(Buffer.byteLength(body)) },
      timeout: policy.timeoutMs ?? DEFAULT_TIMEOUT_MS,
    });
    const timer = setTimeout(
      () => req.destroy(new OutboundError('no answer within the time limit', 'timeout')),
      policy.timeoutMs ?? DEFAULT_TIMEOUT_MS,
    );
    req.on('timeout', () => req.destroy(new OutboundError('no answer within the time limit', 'timeout')));
    req.on('error', (err) => {
      clearTimeout(timer);
      reject(
        err instanceof OutboundError
          ? err
          : new OutboundError(`network error (${(err as NodeJS.ErrnoException).code ?? 'unknown'})`, 'network'),
      );
    });
    req.on('response', (res) => {
      let read = 0;
      // A redirect is an answer like any other: Location is never followed.
      res.on('data', (chunk: Buffer) => {
        read += chunk.length;
        if (read > MAX_ANSWER_BYTES) res.destroy();
      });
      const done = () => {
        clearTimeout(timer);
        const headers: Record<string, string> = {};
        for (const [name, value] of Object.entries(res.headers))
          if (value !== undefined) headers[name] = Array.isArray(value) ? value.join(', ') : value;
        resolve({ status: res.statusCode ?? 0, headers });
      };
      res.on('end', done);
      res.on('close', done);
    });
    req.end(body);
  });
}
