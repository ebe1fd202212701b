/**
 * The access-policy rows of a person's own sign-in security (docs/security.md): second factors, re-authentication,
 * the second step of a login, their own sessions, and the Security pages of the dashboard and the console, spread into `ACCESS_POLICY` (src/platform/http/policy.ts), whose header explains the
 * credential kinds. Changing a factor needs an access token: an API key (which an integration's back end may hold)
 * must not enrol or remove the factors of the person it belongs to.
 */

import type { PolicyRule } from './policy.js';

const OWN_SESSION = {
  credential: 'session',
  who: 'the signed-in user with an access token, not an API key (their own factors and sessions)',
} as const;

const OWN_PAGE = { credential: 'web', who: 'a signed-in browser (the person’s own factors)' } as const;

const PUBLIC_PASSKEY = {
  credential: 'web',
  who: 'anyone, from this origin (a passkey sign-in; throttled per client IP like a login)',
} as const;
const FORGOT = {
  credential: 'web',
  who: 'anyone, from this origin (the rate limits of `user.password.forgot`)',
} as const;
const STEP_PASSKEY = { credential: 'web', who: 'the holder of a live second step of a web sign-in' } as const;

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
  'user.passkeys.list': { credential: 'any', who: 'the signed-in user (their own passkeys)' },
  'user.passkeys.options': OWN_SESSION,
  'user.passkeys.register': OWN_SESSION,
  'user.passkeys.rename': OWN_SESSION,
  'user.passkeys.remove': {
    credential: 'session',
    who: 'the signed-in user with an access token whose session authenticated within 5 minutes (checked by the service)',
  },
  'users.login.passkey.options': { credential: 'none', who: 'anyone (a challenge for a passkey sign-in)' },
  'users.login.passkey': {
    credential: 'none',
    who: 'the holder of a registered passkey answering a live challenge (throttled per client IP like a login)',
  },
  'users.login.mfa.passkey.options': { credential: 'none', who: 'the holder of a live mfa_token' },
  'user.sessions.list': { credential: 'any', who: 'the signed-in user (their own sessions)' },
  // Ending sessions is a session's act, as a logout is: a long-lived API key must not stand in for it.
  'user.sessions.end': OWN_SESSION,
  'user.sessions.end-others': OWN_SESSION,
  'web.dashboard.security.sessions.end': OWN_PAGE,
  'web.dashboard.security.sessions.end-others': OWN_PAGE,
  'web.console.security.sessions.end': OWN_PAGE,
  'web.console.security.sessions.end-others': OWN_PAGE,
  'users.login.mfa': {
    credential: 'none',
    who: 'the holder of a live mfa_token from a login (throttled per user like a login)',
  },
  'web.dashboard.sign-in.passkey.options': PUBLIC_PASSKEY,
  'web.dashboard.sign-in.passkey': PUBLIC_PASSKEY,
  'web.dashboard.sign-in.second-factor.passkey': STEP_PASSKEY,
  'web.console.sign-in.passkey.options': PUBLIC_PASSKEY,
  'web.console.sign-in.passkey': PUBLIC_PASSKEY,
  'web.console.sign-in.second-factor.passkey': STEP_PASSKEY,
  'web.dashboard.forgot-password.page': { credential: 'web', who: 'anyone' },
  'web.dashboard.forgot-password': FORGOT,
  'web.console.forgot-password.page': { credential: 'web', who: 'anyone' },
  'web.console.forgot-password': FORGOT,
  'web.dashboard.security': OWN_PAGE,
  'web.dashboard.security.totp': OWN_PAGE,
  'web.dashboard.security.totp.start': OWN_PAGE,
  'web.dashboard.security.totp.confirm': OWN_PAGE,
  'web.dashboard.security.totp.remove': OWN_PAGE,
  'web.dashboard.security.recovery-codes': OWN_PAGE,
  'web.dashboard.security.passkeys.options': OWN_PAGE,
  'web.dashboard.security.passkeys.add': OWN_PAGE,
  'web.dashboard.security.passkeys.rename': OWN_PAGE,
  'web.dashboard.security.passkeys.remove': OWN_PAGE,
  'web.console.security': OWN_PAGE,
  'web.console.security.totp': OWN_PAGE,
  'web.console.security.totp.start': OWN_PAGE,
  'web.console.security.totp.confirm': OWN_PAGE,
  'web.console.security.totp.remove': OWN_PAGE,
  'web.console.security.recovery-codes': OWN_PAGE,
  'web.console.security.passkeys.options': OWN_PAGE,
  'web.console.security.passkeys.add': OWN_PAGE,
  'web.console.security.passkeys.rename': OWN_PAGE,
  'web.console.security.passkeys.remove': OWN_PAGE,
} as const satisfies Record<string, PolicyRule>;
