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
import ipaddr from 'ipaddr.js';
import { Agent, request } from 'undici';
import { type CheckedAddress, isPublicAddress, pinnedLookup, ResolveError, resolveChecked } from './resolve.js';

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

/** Connection pools kept, one per checked address (count); past it the oldest is closed. */
const MAX_POOLS = 256;
/** Connections per origin of one pool (count). */
const CONNECTIONS = 64;
/** Keep-alive pools by checked address (`family/address`): a connection goes only to the address its pool is for. */
const pools = new Map<string, Agent>();

/**
 * The pool whose every connection goes to `address`: its lookup answers that address alone, so a connection made for
 * a request cannot reach another address than the one checked for it (DNS rebinding).
 */
function poolFor(address: CheckedAddress): Agent {
  const key = `${address.family}/${address.address}`;
  let pool = pools.get(key);
  if (!pool) {
    if (pools.size >= MAX_POOLS) {
      const [oldest, agent] = pools.entries().next().value as [string, Agent];
      pools.delete(oldest);
      void agent.close().catch(() => {});
    }
    pool = new Agent({ connections: CONNECTIONS, connect: { lookup: pinnedLookup(address) } });
    pools.set(key, pool);
  }
  return pool;
}

/**
 * POSTs `body` to `url` under the policy, with undici (Node's own HTTP client, as a package: about a third of the CPU
 * of `node:http` per request on kept-alive connections, which matters at thousands of webhook deliveries a second).
 * @param url - the configured URL.
 * @param body - the request body (bytes or UTF-8 text).
 * @param headers - request headers; `Content-Length` is set by the client.
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
  const limit = policy.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const signal = AbortSignal.timeout(limit);
  try {
    // A redirect is an answer like any other: undici's request follows none.
    const answer = await request(target, {
      method: 'POST',
      headers,
      body,
      dispatcher: poolFor(address),
      signal,
      headersTimeout: limit,
      bodyTimeout: limit,
    });
    // The answer's body is read up to MAX_ANSWER_BYTES and dropped: it is never passed on.
    await answer.body.dump({ limit: MAX_ANSWER_BYTES }).catch(() => {});
    const kept: Record<string, string> = {};
    for (const [name, value] of Object.entries(answer.headers))
      if (value !== undefined) kept[name] = Array.isArray(value) ? value.join(', ') : value;
    return { status: answer.statusCode, headers: kept };
  } catch (err) {
    if (signal.aborted || (err as { code?: string }).code?.endsWith('_TIMEOUT'))
      throw new OutboundError('no answer within the time limit', 'timeout');
    throw new OutboundError(`network error (${networkCode(err)})`, 'network');
  }
}

/** The code of a network failure, as undici reports it (its own, or the socket's under `cause`). */
function networkCode(err: unknown): string {
  const cause = (err as { cause?: { code?: unknown } }).cause;
  if (typeof cause?.code === 'string') return cause.code;
  const code = (err as { code?: unknown }).code;
  return typeof code === 'string' ? code : 'unknown';
}
