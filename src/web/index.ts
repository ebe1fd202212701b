/**
 * The public entry of the web context: what the other contexts may use of it (docs/development.md "Bounded
 * contexts"). Each name is documented where it is defined.
 */
export { webRoutes } from './plugin.js';
