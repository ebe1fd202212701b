/**
 * The settings of background rounds, mail, webhooks, the wallet, federation and outbound requests
 * (docs/configuration.md), declared once (src/platform/config/declare.ts): `loadConfig` reads them and the
 * configuration table is written from them.
 */
import { integer, oneOf, type Settings, text } from './declare.js';
import { corsOrigins, dnsServers, hostList, mailbox, smtpUrl } from './parse.js';

/** A comma-separated host list setting (`ASSENT_*_ALLOW_HTTP_HOSTS`), parsed by `hostList`. */
const hosts = (env: string, meaning: string) =>
  text({ env, default: 'unset', unit: 'host list', meaning, parse: (raw) => hostList(env, raw) });

/** From the AskMe sweep to webhook retries, in the table's order. */
export const OUTBOUND_SETTINGS = {
  askMeSweepSeconds: integer({
    env: 'ASSENT_ASKME_SWEEP_SECONDS',
    default: 60,
    timer: true,
    unit: 'seconds',
    meaning:
      'how often AskMe consents whose days ran out are stored as Disallow, with a history event; ' +
      'a round still running when the next is due makes that one skip (so does the purge below)',
  }),
  purgeSeconds: integer({
    env: 'ASSENT_PURGE_SECONDS',
    default: 300,
    timer: true,
    unit: 'seconds',
    meaning:
      'how often login-throttle counters and rate-limit windows that no longer decide anything (past their window, ' +
      'no block in force) are deleted, refresh answers kept past their reuse grace period erased, and event webhook ' +
      'deliveries finished more than 30 days ago deleted',
  }),
  smtpUrl: text({
    env: 'SMTP_URL',
    default: 'unset',
    unit: 'URL',
    meaning:
      '`smtp://` or `smtps://` relay (user and password in the URL) for mail; ' +
      'unset writes each mail as a `.eml` file into `ASSENT_DATA_DIR/outbox` (mode 0600)',
    parse: smtpUrl,
  }),
  /** Undefined when unset: `loadConfig` then makes it from the host of the public URL. */
  mailFrom: text({
    env: 'ASSENT_MAIL_FROM',
    default: 'Assent <no-reply@PUBLIC_HOST>',
    unit: '',
    meaning: '`From` of every mail: one address, `local@domain` or `Name <local@domain>`',
    parse: mailbox,
  }),
  webhookAllowHttpHosts: hosts(
    'ASSENT_WEBHOOK_ALLOW_HTTP_HOSTS',
    'comma-separated hosts a webhook may reach over plain `http` and at loopback or private addresses ' +
      '(development and tests, e.g. `127.0.0.1`; host names or IP addresses, IPv6 in brackets, no port); every ' +
      'other webhook must be `https` to a public address',
  ),
  walletPerIp: integer({
    env: 'ASSENT_WALLET_PER_IP',
    default: 3000,
    unit: 'count',
    meaning:
      "requests per client IP per minute to the wallet's endpoints (request object and response, docs/wallet.md); more is a 429",
  }),
  walletAllowHttpHosts: hosts(
    'ASSENT_WALLET_ALLOW_HTTP_HOSTS',
    'comma-separated hosts whose status lists (of wallet credentials) Assent may fetch over plain `http`, ' +
      'and reach at loopback or private addresses (development and tests, e.g. `127.0.0.1`); every other ' +
      'status list must be `https` at a public address',
  ),
  federationAllowHttpHosts: hosts(
    'ASSENT_FEDERATION_ALLOW_HTTP_HOSTS',
    "comma-separated hosts an organisation's IdP URLs (and app redirect URIs) " +
      'may name over plain `http`, and reach at loopback or private addresses (development and tests, ' +
      'e.g. `127.0.0.1`); every other IdP URL must be `https` to a public address',
  ),
  samlClockSkewSeconds: integer({
    env: 'ASSENT_SAML_CLOCK_SKEW_SECONDS',
    default: 60,
    min: 0,
    max: 600,
    unit: 'seconds',
    meaning:
      "largest difference between Assent's clock and a SAML IdP's accepted on an assertion's `NotBefore` and " +
      "`NotOnOrAfter` and on a LogoutRequest's `IssueInstant` and `NotOnOrAfter` (ADFS deployments " +
      'often need more than the default)',
  }),
  corsOrigins: text({
    env: 'ASSENT_CORS_ORIGINS',
    default: 'unset',
    unit: 'origin list',
    meaning:
      'comma-separated exact origins (`https://dashboard.example.org`: scheme, host, port if not the default; ' +
      'no path, no `*`) of browser apps allowed to call the API from another origin, besides the ' +
      'origins of the organisations\' app redirect URIs (see [api.md](api.md) "CORS and security headers")',
    parse: corsOrigins,
  }),
  dnsServers: text({
    env: 'ASSENT_DNS_SERVERS',
    default: 'unset',
    unit: 'server list',
    meaning:
      'comma-separated `IP[:PORT]` DNS servers that federation requests resolve host names ' +
      'with (`dns.promises.Resolver`); unset means the system resolver (`dns.lookup`)',
    parse: dnsServers,
  }),
  notifyBatchSize: integer({
    env: 'ASSENT_NOTIFY_BATCH_SIZE',
    default: 500,
    unit: 'individuals',
    meaning: 'individuals claimed per batch of a special consent request',
  }),
  anonymousLimit: integer({
    env: 'ASSENT_ANONYMOUS_LIMIT',
    default: 10000,
    unit: 'users',
    meaning: 'anonymous users one organisation may add per window; past it, 429 with `Retry-After`',
  }),
  anonymousWindowSeconds: integer({
    env: 'ASSENT_ANONYMOUS_WINDOW_SECONDS',
    default: 3600,
    unit: 'seconds',
    meaning: 'the window of `ASSENT_ANONYMOUS_LIMIT`',
  }),
  webhookRetries: integer({
    env: 'ASSENT_WEBHOOK_RETRIES',
    default: 5,
    min: 0,
    unit: 'count',
    meaning: 'retries of a failed webhook or mail delivery after the first attempt (0: none)',
  }),
  webhookRetryDelaySeconds: integer({
    env: 'ASSENT_WEBHOOK_RETRY_DELAY_SECONDS',
    default: 30,
    timer: true,
    unit: 'seconds',
    meaning: 'delay before the first retry, doubled for each further one',
  }),
  eventWebhookFirstRetrySeconds: integer({
    env: 'ASSENT_EVENT_WEBHOOK_FIRST_RETRY_SECONDS',
    default: 5,
    max: 3600,
    unit: 'seconds',
    meaning:
      'delay before the first retry of an event webhook delivery (docs/events.md "Retries"), doubled for each ' +
      'further one up to 6 hours, with ±20 % jitter',
  }),
  eventWebhookRetryWindowSeconds: integer({
    env: 'ASSENT_EVENT_WEBHOOK_RETRY_WINDOW_SECONDS',
    default: 259_200,
    shown: '259200 (3 days)',
    unit: 'seconds',
    meaning: 'how long an event webhook delivery is retried after its first attempt before it is marked failed',
  }),
  eventWebhookDisableAfterSeconds: integer({
    env: 'ASSENT_EVENT_WEBHOOK_DISABLE_AFTER_SECONDS',
    default: 432_000,
    shown: '432000 (5 days)',
    unit: 'seconds',
    meaning:
      'an event webhook whose every attempt failed for this long is disabled, and the organisation’s Owners are mailed',
  }),
  eventWebhookDelivery: oneOf({
    env: 'ASSENT_EVENT_WEBHOOK_DELIVERY',
    values: ['thread', 'inline'] as const,
    default: 'thread',
    unit: '',
    meaning:
      'where event webhooks are sent from (docs/events.md "Delivery guarantees"): `thread`, a thread of their own with its own ' +
      'database connections, off the thread that answers requests (PostgreSQL; the embedded store always sends ' +
      'inline); `inline`, the request thread',
  }),
} satisfies Settings;
