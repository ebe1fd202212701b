/** Instants in queries: RFC 3339 date-times (RFC 3339 §5.6). */
import { InvalidRequest } from '../core/errors.js';

/**
 * Parses an RFC 3339 instant from a query (RFC 3339 §5.6 `date-time`, with its offset).
 * @param raw - the parameter's value.
 * @param name - the parameter, for the message.
 * @throws {InvalidRequest} when it is not one.
 */
export function parseInstant(raw: string, name: string): Date {
  const ms = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/i.test(raw)
    ? Date.parse(raw)
    : Number.NaN;
  if (Number.isNaN(ms)) throw new InvalidRequest(`${name} must be an RFC 3339 date-time, e.g. 2026-01-31T12:00:00Z`);
  return new Date(ms);
}
