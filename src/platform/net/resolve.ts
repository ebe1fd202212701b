/**
 * Name resolution for outbound requests to admin-configured URLs, with the SSRF address check
 * (OWASP ASVS 5.0 V1.3.6, V13.2.4). The addresses returned are the only ones a request may then
 * connect to: checking one lookup and connecting through a fresh one is the DNS-rebinding hole.
 */
import dns from 'node:dns';
import type { LookupFunction } from 'node:net';
import ipaddr from 'ipaddr.js';
import { isPublicAddress } from './address.js';

export { isPublicAddress };

/** Thrown when a host may not be reached, or cannot be resolved; `kind` as in `OutboundError`. */
export class ResolveError extends Error {
  override name = 'ResolveError';
  /** @param kind - `blocked` (a non-public address) or `network` (no answer). */
  constructor(
    message: string,
    readonly kind: 'blocked' | 'network',
  ) {
    super(message);
  }
}

/** One checked address. */
export interface CheckedAddress {
  address: string;
  /** 4 or 6. */
  family: number;
}

/** `[::1]` → `::1`; other host names unchanged. */
function bare(hostname: string): string {
  return hostname.startsWith('[') && hostname.endsWith(']') ? hostname.slice(1, -1) : hostname;
}

async function lookupAll(hostname: string, dnsServers: readonly string[]): Promise<CheckedAddress[]> {
  if (dnsServers.length === 0) {
    const found = await dns.promises.lookup(hostname, { all: true });
    return found.map((a) => ({ address: a.address, family: a.family }));
  }
  const resolver = new dns.promises.Resolver({ timeout: 2000, tries: 1 });
  resolver.setServers([...dnsServers]);
  const [v4, v6] = await Promise.allSettled([resolver.resolve4(hostname), resolver.resolve6(hostname)]);
  return [
    ...(v4.status === 'fulfilled' ? v4.value.map((address) => ({ address, family: 4 })) : []),
    ...(v6.status === 'fulfilled' ? v6.value.map((address) => ({ address, family: 6 })) : []),
  ];
}

/**
 * Resolves `hostname` and checks every address. An IP literal is checked as it is (Node's sockets
 * never call a lookup function for a literal, so it must be checked here, before connecting).
 *
 * @param hostname - the URL's host name (IPv6 literals may keep their brackets).
 * @param allowed - true when the operator allowed this host at non-public addresses.
 * @param dnsServers - `ip[:port]` servers to ask (`ASSENT_DNS_SERVERS`); empty means the system's `dns.lookup`.
 * @returns the checked addresses, at least one.
 * @throws {ResolveError} `blocked` when any address is not public (and the host not allowed);
 *   `network` when the name does not resolve.
 */
export async function resolveChecked(
  hostname: string,
  allowed: boolean,
  dnsServers: readonly string[] = [],
): Promise<CheckedAddress[]> {
  const host = bare(hostname);
  let addresses: CheckedAddress[];
  if (ipaddr.isValid(host)) addresses = [{ address: host, family: host.includes(':') ? 6 : 4 }];
  else {
    try {
      addresses = await lookupAll(host, dnsServers);
    } catch (err) {
      throw new ResolveError(`${host} does not resolve (${(err as NodeJS.ErrnoException).code ?? 'error'})`, 'network');
    }
  }
  if (addresses.length === 0) throw new ResolveError(`${host} does not resolve`, 'network');
  // Every address must pass: one private answer among public ones could still be chosen.
  if (!allowed && addresses.some((a) => !isPublicAddress(a.address)))
    throw new ResolveError(`${host} resolves to a non-public address`, 'blocked');
  return addresses;
}

/**
 * A socket lookup that answers only the given, already checked address, so the connection cannot
 * go anywhere else even if the name now resolves differently (DNS rebinding).
 * @param checked - an address from `resolveChecked`.
 */
export function pinnedLookup(checked: CheckedAddress): LookupFunction {
  return (_hostname, options, callback) => {
    if (options.all) return (callback as unknown as (e: null, a: dns.LookupAddress[]) => void)(null, [checked]);
    callback(null, checked.address, checked.family);
  };
}
