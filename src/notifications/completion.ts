/**
 * The end of a special consent request's job (docs/notifications.md "Special consent request"): completed once its
 * scan is done and no delivery is left pending or retrying, with an audit entry `consent-request.complete` naming the
 * counts reached, in the same transaction (docs/audit.md).
 */
import { recordAudit } from '../organisations/index.js';
import type { Db } from '../platform/db/open.js';
import * as store from './store.js';

/**
 * Completes the job when it is done; a no-op when it is not, or another round completed it first.
 * @throws the database's error (the job stays running; the next round completes it).
 */
export async function completeJobIfDone(db: Db, jobId: string): Promise<void> {
  await db.transaction(async (tx) => {
    const done = await store.completeIfDone(tx, jobId);
    if (!done) return;
    await recordAudit(tx, {
      orgId: done.orgId,
      actorUserId: null,
      actorApiKeyId: null,
      action: 'consent-request.complete',
      target: { type: 'consent_request', id: jobId },
      detail: { notified: done.notified, skipped: done.skipped, failed: done.failed },
      source: 'system',
    });
  });
}
