/**
 * Client addresses cut to the network they come from, for what a person is shown of their own sessions
 * (docs/security.md "Sessions"): enough to tell "at home" from "abroad", not the address itself (GDPR Art. 5(1)(c),
 * data minimisation).
 */
import { isIPv4, isIPv6 } from 'node:net';

/**
 * The network of an address: IPv4 cut to /24 (`192.0.2.0/24`), IPv6 to /48 (`2001:db8:1::/48`); an IPv4-mapped
 * IPv6 address as IPv4.
 * @param ip - the address as the server saw it (`request.ip`).
 * @returns the prefix in CIDR notation, or '' for anything that is not an address.
 */
export function ipPrefix(ip: string): string {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(ip);
  const v4 = mapped ? mapped[1]! : ip;
  if (isIPv4(v4)) return `${v4.split('.').slice(0, 3).join('.')}.0/24`;
  if (!isIPv6(ip)) return '';
  const [head = '', tail = ''] = ip.toLowerCase().split('::');
  const left = head ? head.split(':') : [];
  const right = tail ? tail.split(':') : [];
  const groups = [...left, ...Array(Math.max(0, 8 - left.length - right.length)).fill('0'), ...right];
  return `${groups
    .slice(0, 3)
    .map((g) => g.replace(/^0+(?=.)/, ''))
    .join(':')}::/48`;
}
