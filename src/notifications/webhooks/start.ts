/**
 * The event webhooks of one process (docs/events.md "Webhooks"): the service the routes use and the dispatcher that
 * delivers, started with the other background work by `Context.startWorkers` (`WebhookDispatcher.start`) and stopped
 * before the store is closed.
 */
import { ownerAddresses } from '../../organisations/index.js';
import type { Config } from '../../platform/config/load.js';
import type { MasterKey } from '../../platform/crypto/master-key.js';
import type { Db } from '../../platform/db/open.js';
import type { EventSequencer } from '../../platform/events/sequencer.js';
import type { Mailer } from '../../platform/mail/mailer.js';
import type { OutboundPolicy } from '../../platform/net/outbound.js';
import { EventFeed } from '../events/service.js';
import { WebhookDispatcher } from './dispatcher.js';
import { WebhookService } from './service.js';

/** The event webhook parts of a context, and the change feed. */
export interface EventWebhooks {
  service: WebhookService;
  dispatcher: WebhookDispatcher;
  /** Reads each organisation's change feed (`GET {base}/organizations/{organizationID}/events`). */
  feed: EventFeed;
}

/**
 * Builds the webhook service, its dispatcher (not started) and the change feed.
 * @param deps - the database, master key, mailer, configuration and event sequencer of the context, and `sealFirst`,
 *   which seals the organisation's committed consent events: a consent event enters the feed once sealed (its
 *   `HistorySeq`), so the feed's reader runs it before numbering.
 */
export function createEventWebhooks(deps: {
  db: Db;
  master: MasterKey;
  mailer: Mailer;
  config: Config;
  sequencer: EventSequencer;
  sealFirst: (orgId: string) => Promise<void>;
}): EventWebhooks {
  const { db, config } = deps;
  const policy: OutboundPolicy = { allowHttpHosts: config.webhookAllowHttpHosts, dnsServers: config.dnsServers };
  const dispatcher = new WebhookDispatcher(db, deps.master, deps.mailer, {
    policy,
    retry: {
      firstRetrySeconds: config.eventWebhooks.firstRetrySeconds,
      retryWindowSeconds: config.eventWebhooks.retryWindowSeconds,
    },
    disableAfterSeconds: config.eventWebhooks.disableAfterSeconds,
    leaseSeconds: config.jobLeaseSeconds,
    publicUrl: config.publicUrl,
    owners: (orgId) => ownerAddresses(db, orgId),
  });
  // Every event committed before the call in the feed: consent events sealed (which releases them), then all numbered.
  const flushFeed = async (orgId: string) => {
    await deps.sealFirst(orgId);
    await deps.sequencer.flush(orgId);
  };
  const service = new WebhookService(db, deps.master, flushFeed, dispatcher, policy);
  const feed = new EventFeed(db, flushFeed, config.publicUrl);
  return { service, dispatcher, feed };
}
