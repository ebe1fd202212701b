/**
 * The parsers of src/config.ts's settings (docs/configuration.md): each reads one variable's raw
 * text and returns its value, or throws `ConfigError` naming the variable and what it holds.
 */

/** Thrown when an environment variable holds a value Assent cannot use. */
export class ConfigError extends Error {
  override name = 'ConfigError';
}

/**
 * An integer setting: `fallback` when unset or empty.
 * @param max - the largest value accepted; unbounded when absent.
 * @throws {ConfigError} when it is not an integer from `min` to `max`.
 */
export function int(env: NodeJS.ProcessEnv, name: string, fallback: number, min = 1, max?: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < min || (max !== undefined && value > max)) {
    const range = max === undefined ? `of at least ${min}` : `from ${min} to ${max}`;
    throw new ConfigError(`${name} must be an integer ${range}, got "${raw}"`);
  }
  return value;
}

/** A comma-separated host list, lower-cased, blanks dropped (`ASSENT_*_ALLOW_HTTP_HOSTS`). */
export function hostList(raw: string | undefined): string[] {
  return (raw ?? '')
    .split(',')
    .map((h) => h.trim().toLowerCase())
    .filter(Boolean);
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
 * `ASSENT_CORS_ORIGINS`: exact origins only; `*` and `null`
 * would open the API to any page (Fetch standard, CORS protocol).
 * @throws {ConfigError} for an entry that is not an exact http(s) origin.
 */
export function corsOrigins(raw: string | undefined): string[] {
  const list = (raw ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  for (const origin of list) {
    let parsed: URL | undefined;
    try {
      parsed = new URL(origin);
    } catch {
      parsed = undefined;
    }
    if (!parsed || !/^https?:$/.test(parsed.protocol) || parsed.origin !== origin) {
      throw new ConfigError(
        'ASSENT_CORS_ORIGINS must list exact origins such as https://dashboard.example.org (no path, ' +
          `no trailing slash, no *), got "${origin}"`,
      );
    }
  }
  return list;
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
    if (!/^(\d{1,3}(\.\d{1,3}){3}|\[[0-9a-fA-F:]+\])(:\d{1,5})?$/.test(server))
      throw new ConfigError(`ASSENT_DNS_SERVERS must list IP[:PORT] entries, got "${server}"`);
  }
  return list;
}
