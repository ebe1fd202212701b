/**
 * The organisation audit log (docs/audit.md; ASVS 5.0 V16.2.1): who changed an organisation's administration, what,
 * from where and when, never a secret, sealed into a hash chain per organisation (docs/decisions/0033-audit-log-chain.md).
 * Other domains write their entries through `recordAudit`, inside the transaction of the change, so that a change and
 * its entry commit together; they never use this context's stores (docs/development.md, code layout).
 */

import { type ChangeSource, currentActivity } from '../../platform/core/activity.js';
import { InvalidRequest } from '../../platform/core/errors.js';
import type { Principal } from '../../platform/core/principal.js';
import type { Db, Executor } from '../../platform/db/open.js';
import { keysetPage } from '../../platform/http/pagination.js';
import { isId } from '../../platform/util/ids.js';
import { parseInstant } from '../../platform/util/instant.js';
import { AUDIT_GENESIS_LINK, checkEntry } from './chain.js';
import * as seals from './seal-store.js';
import type { AuditSealer } from './sealer.js';
import { type AuditFilter, type AuditRow, entriesAfter, entriesBefore, filterChoices, insertEntry } from './store.js';

export type { AuditFilter, AuditRow } from './store.js';

/**
 * The filter of an audit-log query (docs/audit.md "Reading"): "" or absent is no filter; `actor` is a user ID, or else an
 * e-mail; `from` and `to` are RFC 3339 instants.
 * @param query - the query's filter parameters, as the schema validated them.
 * @throws {InvalidRequest} when `actor` is neither a user ID nor an e-mail, or `from`/`to` is not an RFC 3339 instant.
 */
export function auditFilter(query: { action?: string; actor?: string; target?: string; from?: string; to?: string }) {
  const filter: AuditFilter = {};
  if (query.action) filter.action = query.action;
  const actor: string = query.actor ?? '';
  const byId: boolean = isId(actor);
  if (byId) filter.actorUserId = actor.toLowerCase();
  else if (actor.includes('@')) filter.actorEmail = actor;
  else if (actor !== '') throw new InvalidRequest('actor must be a user ID or an e-mail address');
  if (query.target) filter.targetId = query.target;
  if (query.from) filter.from = parseInstant(query.from, 'from');
  if (query.to) filter.to = parseInstant(query.to, 'to');
  return filter;
}

/** Entries read per round trip while verifying (count). */
const VERIFY_BATCH = 2000;
/** Entries read per round trip while exporting (count): what an export holds in memory at most. */
const EXPORT_BATCH = 1000;

/**
 * The actor fields of an entry for a change made with `principal`'s credential.
 * @returns its user, and the API key when one was presented.
 */
export function auditActor(principal: Principal): { actorUserId: string; actorApiKeyId: string | null } {
  return { actorUserId: principal.userId, actorApiKeyId: principal.apiKeyId ?? null };
}

/** One entry to record. */
export interface AuditEntry {
  orgId: string;
  /** The user who made the change; null when no user did (`assent import`, the system). */
  actorUserId: string | null;
  /** The API key the actor used, or null (an access token, a browser session, or no user). */
  actorApiKeyId: string | null;
  /** What happened, `<object>.<verb>` (docs/audit.md "Actions"), e.g. `purpose.update`, `invitation.create`. */
  action: string;
  /** The changed object: its kind (`purpose`, `webhook`, …) and ID; absent when it is the organisation itself. */
  target?: { type: string; id: string };
  /** The changed fields, each with its value before and after; never a secret. */
  changes?: Record<string, { old: unknown; new: unknown }>;
  /** Other details (names, counts); never a secret (a token, a password, a client secret). */
  detail: Record<string, unknown>;
  /** Overrides the activity's source (`import` for the entries of an import). */
  source?: ChangeSource;
}

/**
 * Records an entry, with the source, request ID and client IP of the activity under way
 * (src/platform/core/activity.ts) and the actor's name and e-mail as they are now.
 * @param tx - the transaction of the change it records (or the root handle when there is none).
 * @throws the database's error (the caller's transaction then rolls back with the change).
 */
export async function recordAudit(tx: Executor, entry: AuditEntry): Promise<void> {
  // Work that a request started but that is Assent's own (a job finishing) carries no request's ID or address.
  const activity =
    entry.source === 'system' ? { requestId: '', clientIp: '', source: 'system' as const } : currentActivity();
  await insertEntry(tx, {
    orgId: entry.orgId,
    actorUserId: entry.actorUserId,
    actorApiKeyId: entry.actorApiKeyId,
    source: entry.source ?? activity.source,
    action: entry.action,
    targetType: entry.target?.type ?? '',
    targetId: entry.target?.id ?? '',
    changes: entry.changes ?? {},
    detail: entry.detail,
    requestId: activity.requestId,
    clientIp: activity.clientIp,
  });
}

/**
 * The fields that differ between two states of an object, each with its value before and after, for `Changes`
 * (docs/audit.md "Entries"). Values are compared by their JSON; `before` null (a creation) lists every field of `after`
 * with `old` null.
 * @param before - the fields before the change, or null when the object is new.
 * @param after - the same fields after it.
 */
export function auditChanges(
  before: Record<string, unknown> | null,
  after: Record<string, unknown>,
): Record<string, { old: unknown; new: unknown }> {
  const changes: Record<string, { old: unknown; new: unknown }> = {};
  for (const [field, value] of Object.entries(after)) {
    const old = before === null ? null : (before[field] ?? null);
    if (before === null || JSON.stringify(old) !== JSON.stringify(value)) changes[field] = { old, new: value };
  }
  return changes;
}

/** What `verify` answers (docs/audit.md "Verification"). */
export interface AuditVerification {
  Valid: boolean;
  /** Entries that verified, from the first (count). */
  Entries: number;
  /** The seq of the first entry that does not verify; null when all do. */
  FirstBrokenSeq: number | null;
  /** Its ID, when the entry exists ("" otherwise). */
  FirstBrokenID: string;
  /** Why it does not verify ("" when all do). */
  Reason: string;
}

/** Reads and verifies the organisation audit log (`GET {base}/organizations/{organizationID}/audit-log…`). */
export class AuditLogService {
  /**
   * @param db - the database.
   * @param sealer - flushed before each read, so that every entry committed before it is shown sealed.
   */
  constructor(
    private readonly db: Db,
    private readonly sealer: AuditSealer,
  ) {}

  /**
   * One page of an organisation's entries, newest first, keyset-paged by ID (docs/audit.md "Reading").
   * @param startId - exclusive: the page starts after this entry; undefined for the newest.
   * @param limit - the page size (count; `pageLimit` has checked it).
   * @param filter - only the entries it admits.
   * @returns the entries, and the ID to start the next page after when there is one.
   * @throws {InvalidRequest} when `startId` is not an entry ID, `filter.actorUserId` not a user ID, or `from` not before
   *   `to`.
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
    if (filter.from && filter.to && filter.from >= filter.to) throw new InvalidRequest('from must be before to');
    await this.sealer.flush(orgId);
    return keysetPage(await entriesBefore(this.db, orgId, startId, limit, filter), limit, (e) => e.id);
  }

  /**
   * The actions and actor e-mails that occur in the organisation's log (at most 200 of each, ascending), for the
   * console's filter suggestions.
   */
  choices(orgId: string): Promise<{ actions: string[]; actorEmails: string[] }> {
    return filterChoices(this.db, orgId);
  }

  /**
   * Every entry the filter admits, oldest first, read `EXPORT_BATCH` (1,000) at a time while it is iterated, so that an
   * export of any length holds one batch (docs/audit.md "Export"). Entries committed before the call are sealed first;
   * those committed while it runs may be included, sealed or not.
   * @throws {InvalidRequest} when `filter.from` is not before `filter.to`; the database's error, also while iterating.
   */
  async entries(orgId: string, filter: AuditFilter): Promise<AsyncIterable<AuditRow>> {
    if (filter.from && filter.to && filter.from >= filter.to) throw new InvalidRequest('from must be before to');
    await this.sealer.flush(orgId);
    const db = this.db;
    return (async function* () {
      let after: string | undefined;
      for (;;) {
        const batch = await entriesAfter(db, orgId, after, EXPORT_BATCH, filter);
        yield* batch;
        if (batch.length < EXPORT_BATCH) return;
        after = batch.at(-1)!.id;
      }
    })();
  }

  /**
   * Recomputes the organisation's chain from its first entry and names the first entry that does not hold: one
   * missing (a gap in `seq`), changed (its link does not recompute), or cut off at the end (the head names a later
   * entry than the last found).
   * @throws the database's error.
   */
  async verify(orgId: string): Promise<AuditVerification> {
    await this.sealer.flush(orgId);
    const head = await seals.auditHead(this.db, orgId);
    let prev: Buffer = AUDIT_GENESIS_LINK;
    let seq = 0;
    const broken = (id: string, reason: string) => ({
      Valid: false,
      Entries: seq,
      FirstBrokenSeq: seq + 1,
      FirstBrokenID: id,
      Reason: reason,
    });
    for (;;) {
      const batch = (await seals.sealedEntriesAfter(this.db, orgId, seq, VERIFY_BATCH)).filter(
        (e) => (e.seq ?? 0) <= head.seq,
      );
      for (const entry of batch) {
        const reason = checkEntry(entry, seq + 1, prev);
        if (reason) return broken(entry.seq === seq + 1 ? entry.id : '', reason);
        seq += 1;
        prev = entry.link!;
      }
      if (batch.length < VERIFY_BATCH) break;
    }
    if (head.seq !== seq || !head.link.equals(prev))
      return broken('', `the chain head names entry ${head.seq}, but the last entry found is ${seq}`);
    return { Valid: true, Entries: seq, FirstBrokenSeq: null, FirstBrokenID: '', Reason: '' };
  }
}
