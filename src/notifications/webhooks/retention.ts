/** How long the deliveries log of event webhooks keeps a delivery (docs/events.md "The deliveries log"). */
import type { Executor } from '../../platform/db/open.js';
import { deleteFinishedBefore } from './log-store.js';

/** Days a finished delivery (succeeded or failed) stays in the deliveries log. */
export const DELIVERY_LOG_DAYS = 30;

/**
 * Deletes the deliveries that finished more than DELIVERY_LOG_DAYS ago, with their attempts; the purge round runs it.
 * @returns how many deliveries were deleted (count).
 * @throws the database's error.
 */
export function purgeFinishedDeliveries(db: Executor): Promise<number> {
  return deleteFinishedBefore(db, DELIVERY_LOG_DAYS);
}
