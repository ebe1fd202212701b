/**
 * The settings of sign-in, tokens, passwords and their limits (docs/configuration.md;
 * docs/identity.md), declared once (src/platform/config/declare.ts): `loadConfig` reads them and the
 * configuration table is written from them.
 */
import { integer, type Settings, text } from './declare.js';
import { clientId } from './parse.js';

/** Tokens, API keys, argon2id, the login throttle and the forgotten-password limits, in the table's order. */
export const IDENTITY_SETTINGS = {
  accessTokenTtl: integer({
    env: 'ASSENT_ACCESS_TOKEN_TTL',
    default: 900,
    unit: 'seconds',
    meaning: 'access-token lifetime',
  }),
  refreshTokenTtl: integer({
    env: 'ASSENT_REFRESH_TOKEN_TTL',
    default: 36000,
    unit: 'seconds',
    meaning: 'refresh-token lifetime',
  }),
  refreshReuseGraceSeconds: integer({
    env: 'ASSENT_REFRESH_REUSE_GRACE_SECONDS',
    default: 5,
    min: 0,
    unit: 'seconds',
    meaning:
      'refresh-token reuse grace period (0: none): a rotated refresh token presented again ' +
      'by its client within it, while its successor is unused, answers the same successor ' +
      'tokens instead of revoking the session (see [identity.md](identity.md) "Sessions")',
  }),
  apiKeyTtlDays: integer({ env: 'ASSENT_API_KEY_TTL_DAYS', default: 360, unit: 'days', meaning: 'API-key lifetime' }),
  defaultClientId: text({
    env: 'ASSENT_DEFAULT_CLIENT_ID',
    default: 'first registered client',
    unit: '',
    meaning: 'client a login binds its session to when the body names no `clientid`',
    parse: clientId,
  }),
  // ASVS 5.0 V11.4.2 minimum: m=19456 KiB, t=2, p=1.
  argon2MemoryKib: integer({
    env: 'ASSENT_ARGON2_MEMORY_KIB',
    default: 19456,
    min: 19456,
    unit: 'KiB',
    meaning: 'argon2id memory',
  }),
  argon2Iterations: integer({
    env: 'ASSENT_ARGON2_ITERATIONS',
    default: 2,
    min: 2,
    unit: 'count',
    meaning: 'argon2id iterations',
  }),
  argon2Parallelism: integer({
    env: 'ASSENT_ARGON2_PARALLELISM',
    default: 1,
    min: 1,
    unit: 'lanes',
    meaning: 'argon2id lanes',
  }),
  accountDelayAfter: integer({
    env: 'ASSENT_ACCOUNT_DELAY_AFTER',
    default: 3,
    unit: 'count',
    meaning: 'failures per account before delays start',
  }),
  accountLockAfter: integer({
    env: 'ASSENT_ACCOUNT_LOCK_AFTER',
    default: 10,
    unit: 'count',
    meaning: 'failures per account that lock it',
  }),
  ipDelayAfter: integer({
    env: 'ASSENT_IP_DELAY_AFTER',
    default: 20,
    unit: 'count',
    meaning: 'failures per client IP before delays start',
  }),
  ipLockAfter: integer({
    env: 'ASSENT_IP_LOCK_AFTER',
    default: 100,
    unit: 'count',
    meaning: 'failures per client IP that lock it',
  }),
  lockSeconds: integer({
    env: 'ASSENT_LOCK_SECONDS',
    default: 900,
    unit: 'seconds',
    meaning: 'lock duration, and the window after which failures are forgotten',
  }),
  forgotPerUsername: integer({
    env: 'ASSENT_FORGOT_PER_USERNAME',
    default: 3,
    unit: 'count',
    meaning: 'forgotten-password requests per username (existing or not) per window; more is a 429',
  }),
  forgotPerIp: integer({
    env: 'ASSENT_FORGOT_PER_IP',
    default: 30,
    unit: 'count',
    meaning: 'forgotten-password requests per client IP per window; more is a 429',
  }),
  forgotWindowSeconds: integer({
    env: 'ASSENT_FORGOT_WINDOW_SECONDS',
    default: 900,
    unit: 'seconds',
    meaning: 'window of both forgotten-password limits',
  }),
  invitationTtlSeconds: integer({
    env: 'ASSENT_INVITATION_TTL_SECONDS',
    default: 7 * 24 * 3600,
    unit: 'seconds',
    meaning: 'how long an invitation to an organisation stays usable (7 days)',
  }),
} satisfies Settings;
