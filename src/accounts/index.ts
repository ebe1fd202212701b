/**
 * The public entry of the accounts context: what the other contexts may use of it (docs/development.md "Bounded
 * contexts"). Each name is documented where it is defined.
 */
export { accountRoutes, sendExport } from './routes.js';
export { AccountService } from './service.js';
