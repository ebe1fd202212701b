/**
 * A webhook's ping (docs/events.md "Webhooks", `POST …/webhooks/{webhookID}/ping`): a `webhook.ping` CloudEvent sent
 * now, once (no retries), signed and guarded as every delivery is (attempt.ts), and logged as a delivery of its own.
 * It runs on the request thread, whichever thread delivers the events.
 */
import { randomUUID } from 'node:crypto';
import type { Db } from '../../platform/db/open.js';
import type { OutboundPolicy } from '../../platform/net/outbound.js';
import { eventSource } from '../events/service.js';
import { timeOrderedId } from '../ids.js';
import { attemptDelivery } from './attempt.js';
import * as deliveries from './deliveries-store.js';
import * as log from './log-store.js';
import type { WebhookSecrets } from './secrets.js';
import type { WebhookTarget } from './store.js';

/** What a ping needs. */
export interface PingDeps {
  db: Db;
  secrets: WebhookSecrets;
  policy: OutboundPolicy;
  /** `ASSENT_PUBLIC_URL`, for the event's `source`. */
  publicUrl: string;
}

/** A ping holds its own delivery this long (milliseconds), so that no delivery round claims it meanwhile. */
const HELD_MS = 3600_000;

/**
 * Sends a `webhook.ping` event to the webhook now, once, and logs it as a delivery: inserted as held by this call,
 * then settled with its one attempt.
 * @returns the delivery's ID (a UUIDv7).
 * @throws the database's error; never the attempt's (a failed ping is a failed delivery).
 */
export async function pingWebhook(deps: PingDeps, webhook: WebhookTarget): Promise<string> {
  const [eventId, deliveryId, now] = [randomUUID(), timeOrderedId(), new Date()];
  const body = JSON.stringify({
    specversion: '1.0',
    id: eventId,
    type: 'webhook.ping',
    source: eventSource(deps.publicUrl, webhook.orgId),
    time: now.toISOString(),
    datacontenttype: 'application/json',
    data: { WebhookID: webhook.id, OrganizationID: webhook.orgId },
  });
  await log.insertDelivery(deps.db, {
    id: deliveryId,
    webhookId: webhook.id,
    orgId: webhook.orgId,
    eventId,
    eventType: 'webhook.ping',
    lane: deliveryId,
    state: 'pending',
    attempts: 1,
    nextAt: now,
    leasedUntil: new Date(now.getTime() + HELD_MS),
    body,
    createdAt: now,
  });
  const { payloadUrl: url, contentType } = webhook;
  const attempt = { deliveryId, webhookId: webhook.id, attempt: 1, url, contentType, eventId, body, createdAt: now };
  // Tried once: no retry window.
  const once = { firstRetrySeconds: 1, retryWindowSeconds: 0 };
  const settled = await attemptDelivery({ ...attempt, secrets: deps.secrets.live(webhook) }, deps.policy, once);
  await deps.db.transaction((tx) => deliveries.settle(tx, [settled]));
  return deliveryId;
}
