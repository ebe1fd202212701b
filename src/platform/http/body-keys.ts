/**
 * Case-insensitive JSON body keys (docs/api.md "Requests"): deployed clients send `Consented`,
 * `clientId`, `refreshToken` as well as the spec's lower-case names. Before validation, every
 * key is renamed to the spelling the route's body schema declares. The same key twice in
 * different cases is ambiguous and refused with a 400.
 */
import type { FastifyInstance } from 'fastify';
import { InvalidRequest } from '../core/errors.js';
import { findNul } from '../util/nul.js';
import { MAX_INPUT_DEPTH, nestedDeeperThan } from './depth.js';

interface JsonSchemaLike {
  type?: unknown;
  properties?: Record<string, JsonSchemaLike>;
  items?: JsonSchemaLike;
  anyOf?: JsonSchemaLike[];
}

/**
 * Returns `value` with object keys renamed to the case declared by `schema`, recursively.
 * Keys the schema does not declare are kept as sent. The recursion follows the schema, so its
 * depth is bounded by the schema's (and the input was checked against `MAX_INPUT_DEPTH` before).
 *
 * @param value - parsed JSON.
 * @param schema - a JSON Schema (TypeBox) object.
 * @param at - JSON path of `value`, for messages.
 * @throws {InvalidRequest} when two keys differ only in case.
 */
export function canonicaliseKeys(value: unknown, schema: JsonSchemaLike | undefined, at = 'body'): unknown {
  if (!schema || value === null || typeof value !== 'object') return value;
  if (Array.isArray(value)) {
    return schema.items ? value.map((item, i) => canonicaliseKeys(item, schema.items, `${at}[${i}]`)) : value;
  }
  const properties = schema.properties ?? schema.anyOf?.find((s) => s.properties)?.properties;
  if (!properties) return value;
  const declared = new Map(Object.keys(properties).map((k) => [k.toLowerCase(), k]));
  const out: Record<string, unknown> = {};
  const seen = new Map<string, string>();
  for (const [key, item] of Object.entries(value)) {
    const lower = key.toLowerCase();
    const previous = seen.get(lower);
    if (previous !== undefined) {
      throw new InvalidRequest(
        `Invalid request: ${at} has both "${previous}" and "${key}"; keys are matched without regard to case`,
        'invalid_request',
      );
    }
    seen.set(lower, key);
    const name = declared.get(lower) ?? key;
    out[name] = canonicaliseKeys(item, properties[name], `${at}.${name}`);
  }
  return out;
}

/**
 * Registers the `preValidation` hook that canonicalises body keys on every route with a body schema.
 * @param app - the Fastify instance.
 */
export function installBodyKeyCanonicalisation(app: FastifyInstance): void {
  app.addHook('preValidation', async (request) => {
    // Threat: stack exhaustion by deeply nested bodies; checked iteratively before any recursive walk.
    if (nestedDeeperThan(request.body) || nestedDeeperThan(request.query)) {
      throw new InvalidRequest(
        `Invalid request: the data is nested deeper than ${MAX_INPUT_DEPTH} levels`,
        'invalid_request',
      );
    }
    // U+0000 cannot be stored: a clear 400 now rather than a failed query later.
    const nul = findNul(request.query, 'query') ?? findNul(request.body, 'body');
    if (nul) throw new InvalidRequest(`Invalid request: ${nul} contains the NUL character`, 'invalid_request');
    const schema = request.routeOptions.schema?.body as JsonSchemaLike | undefined;
    if (schema && request.body && typeof request.body === 'object') {
      request.body = canonicaliseKeys(request.body, schema);
    }
  });
}

/**
 * A route `preValidation` hook for operations whose body is optional (docs/api.md "Identity management" IdP configuration,
 * 4.3 special consent request, 4.4 anonymous user): an absent body is validated as `{}`.
 * @param req - the request.
 */
export async function absentBodyAsEmpty(req: { body: unknown }): Promise<void> {
  if (req.body === undefined || req.body === null) req.body = {};
}
