/**
 * The organisation audit log (ASVS 5.0 V16.2.1): who changed an organisation's security settings
 * and memberships, what and when, never a secret (docs/federation.md "Audit log", docs/consents.md
 * "Invitations"). Other domains write their entries through `recordAudit`, inside the transaction
 * of the change, so that a change and its entry commit together; they never use
 * `organisations/audit/store.ts` (docs/development.md, code layout).
 */

import { InvalidRequest } from '../../platform/core/errors.js';
import type { Db, Executor } from '../../platform/db/open.js';
import { keysetPage } from '../../platform/http/pagination.js';
import { isId } from '../../platform/util/ids.js';
import { type AuditFilter, type AuditRow, entriesBefore, insertEntry } from './store.js';

export type { AuditFilter, AuditRow } from './store.js';

/** One entry to record. */
export interface AuditEntry {
  orgId: string;
  /** The user who made the change; null when no user did (`assent import`). */
  actorUserId: string | null;
  /** The API key the actor used, or null (an access token, or no user). */
  actorApiKeyId: string | null;
  /** What happened, e.g. `idp.update`, `invitation.create`. */
  action: string;
  /** Names of the changed fields and the like; never a secret (a token, a password, a client secret). */
  detail: Record<string, unknown>;
}

/**
 * Records an entry.
 * @param tx - the transaction of the change it records (or the root handle when there is none).
 * @throws the database's error (the caller's transaction then rolls back with the change).
 */
export async function recordAudit(tx: Executor, entry: AuditEntry): Promise<void> {
  await insertEntry(tx, entry);
}

/** Reads the organisation audit log (`GET {base}/organizations/{organizationID}/audit-log`). */
export class AuditLogService {
  /** @param db - the database. */
  constructor(private readonly db: Db) {}

  /**
   * One page of an organisation's entries, newest first, keyset-paged by ID (docs/federation.md
   * "Audit log").
   * @param startId - exclusive: the page starts after this entry; undefined for the newest.
   * @param limit - the page size (count; `pageLimit` has checked it).
   * @param filter - only the entries of this action and/or this acting user (exact match).
   * @returns the entries, and the ID to start the next page after when there is one.
   * @throws {InvalidRequest} when `startId` is not an entry ID, or `filter.actorUserId` not a user ID.
   */
  async page(
    orgId: string,
    startId: string | undefined,
    limit: number,
    filter: AuditFilter = {},
  ): Promise<{ items: AuditRow[]; next?: string }> {
    if (startId !== undefined && !isId(startId)) throw new InvalidRequest('startid is not an entry ID');
    if (filter.actorUserId !== undefined && !isId(filter.actorUserId))
      throw new InvalidRequest('actor is not a user ID');
    return keysetPage(await entriesBefore(this.db, orgId, startId, limit, filter), limit, (e) => e.id);
  }
}
