/**
 * The settings an operator can give Assent, as data: the source of the configuration table of
 * docs/configuration.md, which `npm run docs` writes from this list, and of `loadConfig`
 * (src/config.ts), which reads the same declarations (src/config-declare.ts). Each group is
 * declared in the file of its area.
 */
import type { Setting } from './config-declare.js';
import { PUSH_SETTINGS } from './config-push.js';
import { IDENTITY_SETTINGS } from './config-settings-identity.js';
import { OUTBOUND_SETTINGS } from './config-settings-outbound.js';
import { PROCESS_SETTINGS, SERVER_SETTINGS } from './config-settings-server.js';

export type { Setting } from './config-declare.js';

/** The groups of settings, in the order of the table; `loadConfig` reads each of them. */
export const SETTING_GROUPS = {
  server: SERVER_SETTINGS,
  identity: IDENTITY_SETTINGS,
  outbound: OUTBOUND_SETTINGS,
  push: PUSH_SETTINGS,
  process: PROCESS_SETTINGS,
} as const;

/** Every setting, in the order of the table. */
export const SETTINGS: readonly Setting[] = Object.values(SETTING_GROUPS).flatMap((group) =>
  Object.values<Setting>(group),
);
