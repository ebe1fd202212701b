/** The words of a consent-request push notification, the same through FCM and APNs (docs/notifications.md "Mobile push"). */
import { v5 as uuidv5 } from 'uuid';
import type { NotificationContext } from './transports.js';

/** Title and body of the notification, and the ID that makes a repeat replace it. */
export interface NotificationText {
  title: string;
  body: string;
  /**
   * `apns-collapse-id` / FCM `collapse_key`: a UUID derived from `<jobID>.<userID>`, so that a
   * notification sent again after a crash replaces the first on the device (at most 64 bytes, APNs).
   */
  collapseId: string;
}

/** UUIDv5 namespace of collapse IDs (a fixed random UUID). */
const COLLAPSE_NAMESPACE = '0b5f5d0e-3c9a-4f57-9a77-3f1d2f8d6a41';

/** The notification of `ctx` for the individual `userId`. */
export function pushText(ctx: NotificationContext, userId: string): NotificationText {
  return {
    title: `${ctx.orgName}: please review your consent`,
    body: `${ctx.orgName} asks you to review your consent for "${ctx.purposeName}".`,
    collapseId: uuidv5(`${ctx.jobId}.${userId}`, COLLAPSE_NAMESPACE),
  };
}
