/**
 * The public entry of the notifications context: what the other contexts may use of it (docs/development.md "Bounded
 * contexts"). Each name is documented where it is defined.
 */
export { eventFeedRoutes } from './events/routes.js';
export { EVENT_TYPES } from './events/schemas.js';
export { EventFeed } from './events/service.js';
export { notificationRoutes } from './routes.js';
export { ApnsInput, ServiceAccountText, WebhookUrl } from './schemas.js';
export type { NotificationService, TransportsView } from './service.js';
export { createNotifications, type Notifications } from './start.js';
export { purgeFinishedDeliveries } from './webhooks/retention.js';
export { webhookRoutes } from './webhooks/routes.js';
export { type DeliveryView, WebhookInput, type WebhookView } from './webhooks/schemas.js';
export { PREVIOUS_SECRET_GRACE_SECONDS, type WebhookService } from './webhooks/service.js';
export { createEventWebhooks, type EventWebhooks } from './webhooks/start.js';
