/**
 * The parsers of the settings (docs/configuration.md) that their declarations (src/platform/config/declare.ts)
 * use: each reads one variable's raw text and returns its value, or throws `ConfigError` naming the
 * variable and what it holds.
 */
import { statSync } from 'node:fs';
import { isIP } from 'node:net';
import path from 'node:path';

/** Thrown when an environment variable holds a value Assent cannot use. */
export class ConfigError extends Error {
  override name = 'ConfigError';
}

/** Longest delay Node's timers take (seconds): a longer one fires at once (`setTimeout`, Node.js "Timers"). */
export const MAX_TIMER_SECONDS = 2_147_483;

/**
 * An integer setting: `fallback` when unset or empty; decimal digits only (no `1e3`, no `0x10`).
 * @param min - smallest value allowed.
 * @param max - largest value allowed (`MAX_TIMER_SECONDS` for a setting that a timer waits for).
 * @throws {ConfigError} naming `name` when it is not an integer from `min` to `max`.
 */
export function int(
  env: NodeJS.ProcessEnv,
  name: string,
  fallback: number,
  min = 1,
  max = Number.MAX_SAFE_INTEGER,
): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = /^-?\d+$/.test(raw.trim()) ? Number(raw.trim()) : Number.NaN;
  if (!Number.isSafeInteger(value) || value < min || value > max) {
    const range = max === Number.MAX_SAFE_INTEGER ? `of at least ${min}` : `from ${min} to ${max}`;
    throw new ConfigError(`${name} must be an integer ${range}, got ${JSON.stringify(raw)}`);
  }
  return value;
}

/**
 * A boolean setting (`ASSENT_TRUST_PROXY`): `true` or `false`; false when unset or empty.
 * @throws {ConfigError} naming `name` for anything else (`yes`, `1`, …), which would otherwise be read as false.
 */
export function bool(env: NodeJS.ProcessEnv, name: string): boolean {
  const raw = env[name];
  if (raw === undefined || raw === '') return false;
  if (raw === 'true' || raw === 'false') return raw === 'true';
  throw new ConfigError(`${name} must be true or false, got ${JSON.stringify(raw)}`);
}

/** A DNS host name (RFC 1123 §2.1 labels; `_` tolerated, as resolvers do), lower-cased by the caller. */
const HOST_NAME = /^(?=.{1,253}$)[a-z0-9_]([a-z0-9_-]{0,61}[a-z0-9_])?(\.[a-z0-9_]([a-z0-9_-]{0,61}[a-z0-9_])?)*\.?$/;

/**
 * `HOST`: the interface to bind, an IPv4 or IPv6 address (without brackets) or a host name.
 * @throws {ConfigError} for anything else (a URL, a port, a space).
 */
export function bindHost(raw: string | undefined): string {
  if (!raw) return '127.0.0.1';
  if (isIP(raw) || HOST_NAME.test(raw.toLowerCase())) return raw;
  throw new ConfigError(
    `HOST must be an IP address (IPv6 without brackets) or a host name, got ${JSON.stringify(raw)}`,
  );
}

/**
 * An absolute http(s) URL setting without credentials, query or fragment (`ASSENT_PUBLIC_URL`, the push URLs).
 * @returns it without trailing slashes.
 * @throws {ConfigError} naming `name` and what is wrong.
 */
export function httpUrl(name: string, raw: string): string {
  let parsed: URL;
  try {
    parsed = new URL(raw);
  } catch {
    throw new ConfigError(
      `${name} must be an absolute http(s) URL such as https://id.example.org, got ${JSON.stringify(raw)}`,
    );
  }
  if (parsed.protocol !== 'https:' && parsed.protocol !== 'http:')
    throw new ConfigError(`${name} must be an http:// or https:// URL, got ${JSON.stringify(raw)}`);
  if (parsed.username || parsed.password || parsed.search || parsed.hash)
    throw new ConfigError(`${name} must not carry credentials, a query or a fragment, got ${JSON.stringify(raw)}`);
  return raw.replace(/\/+$/, '');
}

/**
 * `ASSENT_DEFAULT_CLIENT_ID`: a client ID as the login body's `clientid` takes it (1 to 200
 * characters, docs/api.md), without white space or control characters.
 * @throws {ConfigError} otherwise.
 */
export function clientId(raw: string | undefined): string | undefined {
  if (!raw) return undefined;
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what it refuses.
  if (raw.length > 200 || /[\s\x00-\x1f\x7f]/.test(raw))
    throw new ConfigError(
      `ASSENT_DEFAULT_CLIENT_ID must be at most 200 characters without spaces or control characters, got ${JSON.stringify(raw)}`,
    );
  return raw;
}

/**
 * `ASSENT_MAIL_FROM`: one RFC 5322 §3.4 mailbox, `local@domain` or `Name <local@domain>`.
 * @returns it trimmed, or undefined when unset (the caller's default is `Assent <no-reply@PUBLIC_HOST>`).
 * @throws {ConfigError} for anything else; a line break would inject mail headers (RFC 5322 §2.2).
 */
export function mailbox(raw: string | undefined): string | undefined {
  if (!raw) return undefined;
  const m = /^\s*(?:[^<>\r\n]*<([^<>\s]+)>|([^<>\s]+))\s*$/.exec(raw);
  const address = m?.[1] ?? m?.[2];
  if (!address || !/^[^@\s]+@[^@\s.][^@\s]*$/.test(address))
    throw new ConfigError(
      `ASSENT_MAIL_FROM must be one address, local@domain or Name <local@domain>, got ${JSON.stringify(raw)}`,
    );
  return raw.trim();
}

/**
 * `ASSENT_DATA_DIR`: a directory, or a path where one can be made.
 * @returns the absolute path.
 * @throws {ConfigError} when the path exists and is not a directory.
 */
export function dataDir(raw: string | undefined): string {
  const dir = path.resolve(raw || './data');
  let isDir = true;
  try {
    isDir = statSync(dir).isDirectory();
  } catch {
    // Missing: the store creates it.
  }
  if (!isDir) throw new ConfigError(`ASSENT_DATA_DIR must be a directory, but ${dir} is a file`);
  return dir;
}

/**
 * A comma-separated host list (`ASSENT_*_ALLOW_HTTP_HOSTS`), lower-cased, blanks dropped. Each entry is
 * compared with a URL's host name (WHATWG URL "host"), so it is a host name, an IPv4 address or an
 * IPv6 address in brackets; no scheme, port or path.
 * @throws {ConfigError} naming `name` for an entry that could never match.
 */
export function hostList(name: string, raw: string | undefined): string[] {
  const list = (raw ?? '')
    .split(',')
    .map((h) => h.trim().toLowerCase())
    .filter(Boolean);
  for (const host of list) {
    const ipv6 = /^\[([0-9a-f:.]+)\]$/.exec(host);
    if (ipv6 ? isIP(ipv6[1]!) !== 6 : !HOST_NAME.test(host))
      throw new ConfigError(
        `${name} must list host names or IP addresses (IPv6 in brackets), without scheme, port or path, got ${JSON.stringify(host)}`,
      );
  }
  return list;
}

/**
 * `SMTP_URL`: an `smtp://` or `smtps://` URL, or undefined when unset.
 * @throws {ConfigError} for any other scheme.
 */
export function smtpUrl(raw: string | undefined): string | undefined {
  if (!raw) return undefined;
  if (!/^smtps?:\/\//.test(raw)) throw new ConfigError('SMTP_URL must start with smtp:// or smtps://');
  return raw;
}

/**
 * `ASSENT_CORS_ORIGINS`: exact origins only, as browsers send them in `Origin` (RFC 6454 §6.1:
 * lower-case scheme and host, no default port, no path); `*` and `null` would open the API to any
 * page (Fetch standard, CORS protocol).
 * @throws {ConfigError} for an entry that is not an exact http(s) origin, naming what is wrong and the form to write.
 */
export function corsOrigins(raw: string | undefined): string[] {
  const list = (raw ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  for (const origin of list) {
    const problem = originProblem(origin);
    if (problem)
      throw new ConfigError(
        `ASSENT_CORS_ORIGINS entry ${JSON.stringify(origin)} ${problem}; an origin is scheme://host[:port] in lower case, ` +
          'with no path, no trailing slash and no default port, e.g. https://dashboard.example.org',
      );
  }
  return list;
}

/** Why `origin` is not an exact http(s) origin, or null when it is one. */
function originProblem(origin: string): string | null {
  if (origin === '*' || origin === 'null') return 'would admit any page';
  let parsed: URL;
  try {
    parsed = new URL(origin);
  } catch {
    return 'is not a URL';
  }
  if (!/^https?:$/.test(parsed.protocol)) return 'must use http or https';
  if (parsed.origin === origin) return null;
  if (parsed.username || parsed.password) return 'must not carry credentials';
  if (parsed.pathname !== '/' || parsed.search || parsed.hash || origin.endsWith('/'))
    return `must not have a path, query or trailing slash (write ${parsed.origin})`;
  if (parsed.origin === origin.toLowerCase()) return `must be lower case (write ${parsed.origin})`;
  const rest = origin.slice(origin.indexOf('//') + 2);
  if (/:\d+$/.test(rest) && !parsed.port) return `must omit the default port (write ${parsed.origin})`;
  return `is not written as browsers send it (write ${parsed.origin})`;
}

/**
 * `ASSENT_DNS_SERVERS`: `IP[:PORT]` entries (IPv6 in brackets), blanks dropped.
 * @throws {ConfigError} for any other entry.
 */
export function dnsServers(raw: string | undefined): string[] {
  const list = (raw ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  for (const server of list) {
    const m = /^(\d{1,3}(?:\.\d{1,3}){3}|\[([0-9a-fA-F:]+)\])(?::(\d{1,5}))?$/.exec(server);
    const ipOk = m && (m[2] ? isIP(m[2]) === 6 : isIP(m[1]!) === 4);
    const portOk = !m?.[3] || (Number(m[3]) >= 1 && Number(m[3]) <= 65535);
    if (!ipOk || !portOk)
      throw new ConfigError(
        `ASSENT_DNS_SERVERS must list IP[:PORT] entries (IPv6 in brackets, port 1 to 65535), got ${JSON.stringify(server)}`,
      );
  }
  return list;
}
