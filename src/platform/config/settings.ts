/**
 * The settings an operator can give Assent, as data: the source of the configuration table of
 * docs/configuration.md, which `npm run docs` writes from this list, and of `loadConfig`
 * (src/platform/config/load.ts), which reads the same declarations (src/platform/config/declare.ts). Each group is
 * declared in the file of its area.
 */
import type { Setting } from './declare.js';
import { IDENTITY_SETTINGS } from './settings-identity.js';
import { OUTBOUND_SETTINGS } from './settings-outbound.js';
import { PUSH_SETTINGS } from './settings-push.js';
import { PROCESS_SETTINGS, SERVER_SETTINGS } from './settings-server.js';

export type { Setting } from './declare.js';

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
