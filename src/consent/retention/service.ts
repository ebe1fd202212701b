/**
 * Rules of an organisation's data retention (GDPR Art. 5(1)(e) storage limitation). When enabled,
 * a consented purpose's `DataRetention.Expiry` is the latest consent plus the period
 * (docs/decisions/0008-consent-records-and-catalogue.md).
 */

import { auditActor, auditChanges, recordAudit } from '../../organisations/index.js';
import { NotFound } from '../../platform/core/errors.js';
import type { Principal } from '../../platform/core/principal.js';
import type { Db } from '../../platform/db/open.js';
import * as store from './store.js';

/** The body of every data-retention answer. */
export interface RetentionBody {
  DataRetention: { Enabled: boolean; RetentionPeriod: number };
}

function present(row: store.RetentionRow | null): RetentionBody {
  if (!row) throw new NotFound('Organisation not found');
  return { DataRetention: { Enabled: row.enabled, RetentionPeriod: row.periodSeconds } };
}

/** Reads and changes the setting; the caller's right is checked by the access policy. */
export class RetentionService {
  constructor(private readonly db: Db) {}

  /** The current setting. @throws {NotFound} */
  async get(orgId: string): Promise<RetentionBody> {
    return present(await store.readRetention(this.db, orgId));
  }

  /**
   * Turns retention on or off, keeping the period; audited as `retention.update` when it changes (docs/audit.md).
   * @param actor - who changes it.
   * @throws {NotFound}
   */
  setEnabled(actor: Principal, orgId: string, enabled: boolean): Promise<RetentionBody> {
    return this.set(actor, orgId, { enabled });
  }

  /**
   * Sets the period; audited as `retention.update` when it changes (docs/audit.md).
   * @param actor - who changes it.
   * @param periodSeconds - retention period (seconds, ≥ 1).
   * @throws {NotFound}
   */
  setPeriod(actor: Principal, orgId: string, periodSeconds: number): Promise<RetentionBody> {
    return this.set(actor, orgId, { periodSeconds });
  }

  /**
   * Changes whether retention applies and/or its period in one transaction, with one audit entry `retention.update`
   * naming what changed (old and new; the period in seconds), none when nothing did (docs/audit.md).
   * @param actor - who changes it.
   * @param change - the fields to set; `periodSeconds` in seconds (≥ 1).
   * @throws {NotFound} when there is no such organisation.
   */
  async set(
    actor: Principal,
    orgId: string,
    change: Partial<{ enabled: boolean; periodSeconds: number }>,
  ): Promise<RetentionBody> {
    const row = await this.db.transaction(async (tx) => {
      const before = await store.readRetention(tx, orgId);
      const after = before && (await store.writeRetention(tx, orgId, change));
      if (!before || !after) return null;
      const changes = auditChanges(
        { enabled: before.enabled, periodSeconds: before.periodSeconds },
        { enabled: after.enabled, periodSeconds: after.periodSeconds },
      );
      if (Object.keys(changes).length > 0)
        await recordAudit(tx, {
          orgId,
          ...auditActor(actor),
          action: 'retention.update',
          target: { type: 'organisation', id: orgId },
          changes,
          detail: {},
        });
      return after;
    });
    return present(row);
  }
}

/**
 * The stored retention setting (`enabled`, `periodSeconds` in seconds),
 * as other domains read it with their own statements.
 */
export type { RetentionRow } from './store.js';
