/**
 * Rules of an organisation's data retention (GDPR Art. 5(1)(e) storage limitation). When enabled,
 * a consented purpose's `DataRetention.Expiry` is the latest consent plus the period
 * (docs/decisions/0008-consent-records-and-catalogue.md).
 */

import { NotFound } from '../../platform/core/errors.js';
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

  /** Turns retention on or off, keeping the period. @throws {NotFound} */
  async setEnabled(orgId: string, enabled: boolean): Promise<RetentionBody> {
    return present(await store.writeRetention(this.db, orgId, { enabled }));
  }

  /**
   * Sets the period.
   * @param periodSeconds - retention period (seconds, ≥ 1).
   * @throws {NotFound}
   */
  async setPeriod(orgId: string, periodSeconds: number): Promise<RetentionBody> {
    return present(await store.writeRetention(this.db, orgId, { periodSeconds }));
  }
}

/**
 * The stored retention setting (`enabled`, `periodSeconds` in seconds),
 * as other domains read it with their own statements.
 */
export type { RetentionRow } from './store.js';
