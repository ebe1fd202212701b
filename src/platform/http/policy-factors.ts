/**
 * The access-policy rows of a person's own sign-in security (docs/security.md): second factors, re-authentication,
 * the second step of a login, and the Security pages of the dashboard and the console, spread into `ACCESS_POLICY` (src/platform/http/policy.ts), whose header explains the
 * credential kinds. Changing a factor needs an access token: an API key (which an integration's back end may hold)
 * must not enrol or remove the factors of the person it belongs to.
 */

import type { PolicyRule } from './policy.js';

const OWN_SESSION = {
  credential: 'session',
  who: 'the signed-in user with an access token, not an API key (their own factors)',
} as const;

const OWN_PAGE = { credential: 'web', who: 'a signed-in browser (the person’s own factors)' } as const;

/** The rows of second factors, by operation name. */
export const FACTORS_POLICY = {
  'user.mfa.read': { credential: 'any', who: 'the signed-in user (their own factors)' },
  'user.mfa.totp.start': OWN_SESSION,
  'user.mfa.totp.confirm': OWN_SESSION,
  'user.mfa.totp.remove': {
    credential: 'session',
    who: 'the signed-in user with an access token whose session authenticated within 5 minutes (checked by the service)',
  },
  'user.mfa.recovery-codes.renew': {
    credential: 'session',
    who: 'the signed-in user with an access token whose session authenticated within 5 minutes (checked by the service)',
  },
  'user.reauthenticate': OWN_SESSION,
  'users.login.mfa': {
    credential: 'none',
    who: 'the holder of a live mfa_token from a login (throttled per user like a login)',
  },
  'web.dashboard.security': OWN_PAGE,
  'web.dashboard.security.totp': OWN_PAGE,
  'web.dashboard.security.totp.start': OWN_PAGE,
  'web.dashboard.security.totp.confirm': OWN_PAGE,
  'web.dashboard.security.totp.remove': OWN_PAGE,
  'web.dashboard.security.recovery-codes': OWN_PAGE,
  'web.console.security': OWN_PAGE,
  'web.console.security.totp': OWN_PAGE,
  'web.console.security.totp.start': OWN_PAGE,
  'web.console.security.totp.confirm': OWN_PAGE,
  'web.console.security.totp.remove': OWN_PAGE,
  'web.console.security.recovery-codes': OWN_PAGE,
} as const satisfies Record<string, PolicyRule>;
