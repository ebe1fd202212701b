/**
 * Keyset pagination links (docs/api.md "Consented-users pages"): `Links.Self` and `Links.Next` are
 * absolute URLs, and `Next` (present only when another page exists) carries `limit` and `startid`
 * (`after` for the change feed, docs/events.md "The feed").
 */
import { Type } from 'typebox';
import { InvalidRequest } from '../core/errors.js';

/** Default page size (count). */
export const DEFAULT_LIMIT = 50;
/** Largest page size (count). */
export const MAX_LIMIT = 500;

/** Query parameters of a page; `limit` is validated by `pageLimit`, not the schema, for a clear message. */
export const PageQuery = {
  limit: Type.Optional(Type.String({ description: `page size, 1..${MAX_LIMIT} (default ${DEFAULT_LIMIT})` })),
  startid: Type.Optional(Type.String({ maxLength: 100, description: 'exclusive: the page starts after this ID' })),
};

/** The Links object of a page. */
export const Links = Type.Object({
  Self: Type.String({ description: 'absolute URL of this page' }),
  Next: Type.Optional(Type.String({ description: 'absolute URL of the next page; absent on the last page' })),
});

/**
 * Parses `limit`.
 * @param raw - the query value, or undefined.
 * @returns the page size (count).
 * @throws {InvalidRequest} when it is not a whole number in 1..500.
 */
export function pageLimit(raw: string | undefined): number {
  if (raw === undefined || raw === '') return DEFAULT_LIMIT;
  const n = Number(raw);
  if (!/^\d+$/.test(raw) || n < 1 || n > MAX_LIMIT)
    throw new InvalidRequest(`limit must be a whole number from 1 to ${MAX_LIMIT}`);
  return n;
}

/**
 * Builds `Links`.
 * @param publicUrl - `ASSENT_PUBLIC_URL`.
 * @param requestUrl - the request's path and query (`request.url`).
 * @param limit - the page size.
 * @param nextStart - the last ID of this page when another page exists, else undefined.
 * @param cursor - the query parameter that carries `nextStart` in `Next`: `startid` (docs/api.md), or `after` for the
 *   change feed (docs/events.md "The feed").
 */
export function pageLinks(
  publicUrl: string,
  requestUrl: string,
  limit: number,
  nextStart: string | undefined,
  cursor: 'startid' | 'after' = 'startid',
): { Self: string; Next?: string } {
  const self = new URL(requestUrl, publicUrl.endsWith('/') ? publicUrl : `${publicUrl}/`);
  const base = new URL(publicUrl);
  // The public URL may carry a path prefix (a reverse proxy); keep it in front of the route's path.
  if (base.pathname !== '/')
    self.pathname = base.pathname.replace(/\/$/, '') + new URL(requestUrl, 'http://x').pathname;
  const links: { Self: string; Next?: string } = { Self: self.toString() };
  if (nextStart !== undefined) {
    const next = new URL(self);
    next.searchParams.set('limit', String(limit));
    next.searchParams.set(cursor, nextStart);
    links.Next = next.toString();
  }
  return links;
}

/**
 * Splits a keyset read of `limit + 1` rows into the page and the start of the next one: the extra
 * row only tells that another page exists.
 * @param rows - at most `limit + 1` rows, in page order.
 * @param limit - the page size (count).
 * @param keyOf - the cursor (`startid`) of a row.
 * @returns the page's rows and, when another page exists, the key of its last row.
 */
export function keysetPage<T>(rows: T[], limit: number, keyOf: (row: T) => string): { items: T[]; next?: string } {
  const items = rows.slice(0, limit);
  return rows.length > limit ? { items, next: keyOf(items.at(-1)!) } : { items };
}
