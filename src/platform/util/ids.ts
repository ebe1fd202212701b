/** Identifier checks. IDs in paths are opaque to clients (docs/api.md "Identifiers"). */

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * Whether `id` has the form of an Assent ID (a UUID). A malformed ID names nothing, so callers
 * answer 404 without querying (docs/api.md: "a malformed ID is simply not found, not a 400").
 * @param id - a path parameter.
 */
export function isId(id: unknown): id is string {
  return typeof id === 'string' && UUID.test(id);
}
