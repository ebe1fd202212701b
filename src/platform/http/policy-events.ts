/**
 * The access-policy rows of organisation events (docs/events.md): the change feed and the webhooks, spread into
 * `ACCESS_POLICY` (src/platform/http/policy.ts), whose header explains the credential kinds. Owner and Admin manage
 * webhooks (they decide where the organisation's events go); Dpo and Developer read them and the feed.
 */

import { ORG_MANAGERS, ORG_STAFF } from '../core/roles.js';
import type { PolicyRule } from './policy.js';

const READERS = {
  credential: 'any',
  who: 'Owner, Admin, Dpo or Developer of the organisation (docs/events.md)',
  orgRoles: ORG_STAFF,
} as const;
const MANAGERS = {
  credential: 'any',
  who: 'Owner or Admin of the organisation (docs/events.md)',
  orgRoles: ORG_MANAGERS,
} as const;

/** The rows of the change feed and the webhooks, by operation name. */
export const EVENTS_POLICY = {
  'events.feed': READERS,
  'webhooks.event-types': { credential: 'any', who: 'any signed-in user or API key (the list is the same for all)' },
  'webhooks.list': READERS,
  'webhooks.read': READERS,
  'webhooks.deliveries': READERS,
  'webhooks.create': MANAGERS,
  'webhooks.update': MANAGERS,
  'webhooks.delete': MANAGERS,
  'webhooks.secret.rotate': MANAGERS,
  'webhooks.ping': MANAGERS,
  'webhooks.redeliver': MANAGERS,
} as const satisfies Record<string, PolicyRule>;
