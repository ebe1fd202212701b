/**
 * Who may read or change an individual's consent record (docs/decisions/0008-consent-records-and-catalogue.md "Who may
 * do what"):
 * - the individual, with their own access token or API key: read and change;
 * - an API key of the organisation's Owner, Admin or Developer: read and change, on behalf of a
 *   subscribed individual;
 * - Owner, Admin and Dpo: read;
 * - nobody else (403).
 */

import { Role } from '../../identity/index.js';
import type { RolesCache } from '../../organisations/index.js';
import { AccessDenied, NotFound } from '../../platform/core/errors.js';
import type { Principal } from '../../platform/core/principal.js';
import { isId } from '../../platform/util/ids.js';
import type { Actor } from '../evidence/chain.js';

/** What the caller wants to do with a record. */
export type Access = 'read' | 'write' | 'history';

const READERS: readonly number[] = [Role.Owner, Role.Admin, Role.Dpo];
const AGENTS: readonly number[] = [Role.Owner, Role.Admin, Role.Developer];
const HISTORY_READERS: readonly number[] = [Role.Dpo];

/**
 * Decides whether `principal` may act on `userId`'s record in `orgId`, and names the actor.
 * @throws {NotFound} when the organisation or user ID is malformed, or the organisation unknown.
 * @throws {AccessDenied} when the caller may not.
 */
export async function authorise(
  roles: RolesCache,
  principal: Principal,
  orgId: string,
  userId: string,
  access: Access,
): Promise<Actor> {
  if (!isId(orgId) || !isId(userId)) throw new NotFound('Consent record not found');
  return decideAccess(principal, await roles.rolesIn(orgId, principal.userId), userId, access);
}

/**
 * The decision of `authorise`, given the caller's roles as already read.
 * @param roles - the caller's RoleIDs in the organisation, or null when the organisation does not exist.
 * @throws {NotFound} when `roles` is null; {AccessDenied} when the caller may not.
 */
export function decideAccess(principal: Principal, roles: number[] | null, userId: string, access: Access): Actor {
  if (roles === null) throw new NotFound('Organisation not found');
  const own = {
    type: 'individual',
    userId: principal.userId,
    ...(principal.apiKeyId ? { apiKeyId: principal.apiKeyId } : {}),
  } as const;
  if (principal.userId === userId) return own;
  // An organisation's API key is how its back end acts for an individual (SDKs send `ApiKey`); a
  // staff member's own session is not, so a stolen admin browser session cannot rewrite consents.
  const agent = principal.via === 'apiKey' && roles.some((r) => AGENTS.includes(r));
  if (access === 'write' && agent) return { type: 'apiKey', userId: principal.userId, apiKeyId: principal.apiKeyId };
  if (access === 'read' && (agent || roles.some((r) => READERS.includes(r)))) return own;
  if (access === 'history' && roles.some((r) => HISTORY_READERS.includes(r))) return own;
  throw new AccessDenied('You may not access this consent record');
}
