/** Stored webhooks and deliveries as the API answers them (schemas.ts); never a sealed secret. */
import type { DeliveryRow } from './log-store.js';
import type { DeliveryView, WebhookView } from './schemas.js';
import type { WebhookRow } from './store.js';

/**
 * A webhook as answered.
 * @param secret - the plain secret, only right after creation or rotation.
 */
export function webhookView(w: WebhookRow, secret?: string): WebhookView {
  return {
    id: w.id,
    organizationId: w.orgId,
    payloadUrl: w.payloadUrl,
    subscribedEvents: w.subscribedEvents,
    disabled: w.disabled,
    ...(w.disabled && w.disabledReason ? { disabledReason: w.disabledReason } : {}),
    contentType: w.contentType,
    ...(w.failingSince ? { failingSince: w.failingSince.toISOString() } : {}),
    ...(w.lastSuccessAt ? { lastSuccessAt: w.lastSuccessAt.toISOString() } : {}),
    createdAt: w.createdAt.toISOString(),
    updatedAt: w.updatedAt.toISOString(),
    ...(secret ? { secret } : {}),
  };
}

/** A delivery with its attempts as answered. */
export function deliveryView(d: DeliveryRow): DeliveryView {
  return {
    id: d.id,
    eventId: d.eventId,
    eventType: d.eventType,
    state: d.state as DeliveryView['state'],
    attempts: d.attemptLog.map((a) => ({
      attempt: a.attempt,
      at: new Date(a.at).toISOString(),
      durationMs: a.durationMs,
      ...(a.status !== null ? { status: a.status } : {}),
      ...(a.error !== null ? { error: a.error } : {}),
      requestHeaders: a.requestHeaders,
      responseHeaders: a.responseHeaders,
    })),
    ...(d.state === 'pending' ? { nextAttemptAt: d.nextAt.toISOString() } : {}),
    ...(d.redeliveryOf ? { redeliveryOf: d.redeliveryOf } : {}),
    createdAt: d.createdAt.toISOString(),
    ...(d.finishedAt ? { finishedAt: d.finishedAt.toISOString() } : {}),
  };
}
