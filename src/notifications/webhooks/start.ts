/**
 * The event webhooks of one process (docs/events.md "Webhooks"): the service the routes use and what delivers (the
 * dispatcher, on PostgreSQL in a thread of its own), started with the other background work by
 * `Context.startWorkers` (`WebhookDelivery.start`) and stopped before the store is closed.
 */
import { ownerAddresses } from '../../organisations/index.js';
import type { Config } from '../../platform/config/load.js';
import type { MasterKey } from '../../platform/crypto/master-key.js';
import type { Db, Store } from '../../platform/db/open.js';
import type { EventSequencer } from '../../platform/events/sequencer.js';
import type { Mailer } from '../../platform/mail/mailer.js';
import type { OutboundPolicy } from '../../platform/net/outbound.js';
import { EventFeed } from '../events/service.js';
import { type WebhookDelivery, WebhookDispatcher } from './dispatcher.js';
import { pingWebhook } from './ping.js';
import { WebhookSecrets } from './secrets.js';
import { WebhookService } from './service.js';
import { DispatcherThread } from './thread.js';

/** The event webhook parts of a context, and the change feed. */
export interface EventWebhooks {
  service: WebhookService;
  /** What delivers: the dispatcher on the request thread, or its thread (started by `Context.startWorkers`). */
  delivery: WebhookDelivery;
  /** Reads each organisation's change feed (`GET {base}/organizations/{organizationID}/events`). */
  feed: EventFeed;
}

/**
 * Builds the webhook service, what delivers (not started) and the change feed.
 * @param deps - the store (its database and kind), master key, mailer, configuration and event sequencer of the
 *   context, and `sealFirst`, which seals the organisation's committed consent events: a consent event enters the
 *   feed once sealed (its `HistorySeq`), so the feed's reader runs it before numbering.
 */
export function createEventWebhooks(deps: {
  store: Pick<Store, 'db' | 'kind'>;
  master: MasterKey;
  mailer: Mailer;
  config: Config;
  sequencer: EventSequencer;
  sealFirst: (orgId: string) => Promise<void>;
}): EventWebhooks {
  const { config } = deps;
  const { db } = deps.store;
  const policy = outboundPolicy(config);
  // One cache of opened secrets for the pings and, when it runs on this thread, the dispatcher.
  const secrets = new WebhookSecrets(deps.master);
  // PostgreSQL: deliveries go out from a thread of their own, off the request thread (docs/events.md, "Delivery
  // guarantees"); the embedded store lives in this thread's memory.
  const delivery: WebhookDelivery =
    deps.store.kind === 'postgres' && config.eventWebhooks.delivery === 'thread'
      ? new DispatcherThread(config)
      : newDispatcher(db, secrets, deps.mailer, config);
  const pings = { db, secrets, policy, publicUrl: config.publicUrl };
  // Every event committed before the call in the feed: consent events sealed (which releases them), then all numbered.
  const flushFeed = async (orgId: string) => {
    await deps.sealFirst(orgId);
    await deps.sequencer.flush(orgId);
  };
  const service = new WebhookService(
    db,
    deps.master,
    flushFeed,
    { ping: (w) => pingWebhook(pings, w), delivery },
    policy,
  );
  const feed = new EventFeed(db, flushFeed, config.publicUrl);
  return { service, delivery, feed };
}

/** The outbound guard's settings for webhooks. */
function outboundPolicy(config: Config): OutboundPolicy {
  return { allowHttpHosts: config.webhookAllowHttpHosts, dnsServers: config.dnsServers };
}

/**
 * A dispatcher on this database (not started), as configured.
 * @param db - its own connections: the request thread's, or the delivery thread's (thread-entry.ts).
 * @param secrets - opens the webhooks' sealed secrets (this thread's cache).
 * @param mailer - mails the Owners of a webhook disabled for failing.
 * @param config - retries, disabling, the lease (`ASSENT_JOB_LEASE_SECONDS`) and the outbound policy.
 */
export function newDispatcher(db: Db, secrets: WebhookSecrets, mailer: Mailer, config: Config): WebhookDispatcher {
  return new WebhookDispatcher(db, secrets, mailer, {
    policy: outboundPolicy(config),
    retry: {
      firstRetrySeconds: config.eventWebhooks.firstRetrySeconds,
      retryWindowSeconds: config.eventWebhooks.retryWindowSeconds,
    },
    disableAfterSeconds: config.eventWebhooks.disableAfterSeconds,
    leaseSeconds: config.jobLeaseSeconds,
    publicUrl: config.publicUrl,
    owners: (orgId) => ownerAddresses(db, orgId),
  });
}
