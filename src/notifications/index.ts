/**
 * The public entry of the notifications context: what the other contexts may use of it (docs/development.md "Bounded
 * contexts"). Each name is documented where it is defined.
 */
export { ApnsInput, notificationRoutes, ServiceAccountText, WebhookUrl } from './routes.js';
export type { NotificationService, TransportsView } from './service.js';
export { createNotifications, type Notifications } from './start.js';
