/**
 * Classification of the addresses an outbound request may connect to (OWASP ASVS 5.0 V1.3.6,
 * V13.2.4: SSRF). Threat: an IPv6 spelling that carries a loopback, private or metadata IPv4
 * address (`[::127.0.0.1]`, `[::ffff:169.254.169.254]`, `[2002:a9fe:a9fe::]`) passing for a public
 * IPv6 address. So every IPv6 form that embeds an IPv4 address is judged by the IPv4 address(es) it
 * embeds, and forms whose embedding cannot be known are refused.
 */
import ipaddr from 'ipaddr.js';

/** An IPv4 address from its two 16-bit halves. */
function v4(high: number, low: number): ipaddr.IPv4 {
  return new ipaddr.IPv4([high >> 8, high & 0xff, low >> 8, low & 0xff]);
}

/**
 * The IPv4 addresses that `ip` carries, by RFC; `'refuse'` for a form that is never a legitimate
 * destination or whose embedding cannot be known; null when `ip` is a plain IPv6 address.
 * - `::/96` IPv4-compatible (RFC 4291 §2.5.5.1, deprecated): refused, `::` and `::1` included;
 * - `::ffff:0:0/96` IPv4-mapped (RFC 4291 §2.5.5.2) and `::ffff:0:0:0/96` IPv4-translated
 *   (RFC 6145 §2.1): the last 32 bits;
 * - `64:ff9b::/96` NAT64 well-known prefix (RFC 6052 §2.1): the last 32 bits;
 * - `64:ff9b:1::/48` local-use NAT64 (RFC 8215): refused (a local network's translator; the
 *   position of the IPv4 address depends on its prefix length);
 * - `2002::/16` 6to4 (RFC 3056 §2): bits 16-47;
 * - `2001::/32` Teredo (RFC 4380 §4): the server (bits 32-63) and the client, the last 32 bits
 *   XORed with 0xffffffff.
 */
function embeddedIPv4(ip: ipaddr.IPv6): ipaddr.IPv4[] | 'refuse' | null {
  const w = ip.parts;
  const zero = (from: number, to: number) => w.slice(from, to).every((x) => x === 0);
  if (zero(0, 6)) return 'refuse';
  if (zero(0, 5) && w[5] === 0xffff) return [v4(w[6]!, w[7]!)];
  if (zero(0, 4) && w[4] === 0xffff && w[5] === 0) return [v4(w[6]!, w[7]!)];
  if (w[0] === 0x64 && w[1] === 0xff9b && zero(2, 6)) return [v4(w[6]!, w[7]!)];
  if (w[0] === 0x64 && w[1] === 0xff9b && w[2] === 1) return 'refuse';
  if (w[0] === 0x2002) return [v4(w[1]!, w[2]!)];
  if (w[0] === 0x2001 && w[1] === 0) return [v4(w[2]!, w[3]!), v4(w[6]! ^ 0xffff, w[7]! ^ 0xffff)];
  return null;
}

/**
 * True when `address` is a public unicast address: not loopback, private (RFC 1918, RFC 4193),
 * link-local (169.254.0.0/16, the cloud metadata range), carrier-grade NAT, multicast, reserved,
 * documentation or another special-use range, and no IPv6 form that embeds such an IPv4 address
 * (see `embeddedIPv4`).
 * @param address - an IPv4 or IPv6 literal (without brackets); anything else is not public.
 */
export function isPublicAddress(address: string): boolean {
  if (!ipaddr.isValid(address)) return false;
  const ip = ipaddr.parse(address);
  if (ip.kind() === 'ipv4') return ip.range() === 'unicast';
  const embedded = embeddedIPv4(ip as ipaddr.IPv6);
  if (embedded === 'refuse') return false;
  if (embedded) return embedded.every((a) => a.range() === 'unicast');
  return ip.range() === 'unicast';
}
