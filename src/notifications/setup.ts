/**
 * What the special consent request needs from the configuration and the store, gathered for one
 * job: its scope, the names for the message, and the organisation's live transports.
 */
import type { Config } from '../platform/config/load.js';
import type { MasterKey } from '../platform/crypto/master-key.js';
import type { Db } from '../platform/db/open.js';
import type { Mailer } from '../platform/mail/mailer.js';
import type { OutboundPolicy } from '../platform/net/outbound.js';
import { timeOrderedId } from './ids.js';
import * as store from './store.js';
import { apnsTransport } from './transports/apns.js';
import { fcmTransport, parseServiceAccount } from './transports/fcm.js';
import { APNS_KEY_PURPOSE, FCM_KEY_PURPOSE } from './transports/push-settings.js';
import * as transportsStore from './transports/store.js';
import {
  emailTransport,
  type NotificationContext,
  type Transport,
  type TransportName,
  webhookTransport,
} from './transports/transports.js';

/** The sealing purpose of webhook secrets (HKDF label and AAD, see `platform/crypto/master-key.ts`). */
export const WEBHOOK_SECRET_PURPOSE = 'webhook-secret';

/** The organisation's usable transports. */
export type Transports = Partial<Record<TransportName, Transport>>;

/** Push transports kept per process (count): each holds connections and a cached access token. */
const PUSH_CACHE = 64;

/** Everything one batch of one job needs. */
export interface JobContext {
  orgId: string;
  /** The recipients query's scope. */
  scope: { orgId: string; purposeId: string; attributeIds: string[]; lawfulUsage: boolean };
  notification: NotificationContext;
  transports: Transports;
  /** The webhook URL, for the delivery log ("" when none). */
  webhookUrl: string;
}

/** Configuration and collaborators of the notification worker and service. */
export class NotificationSetup {
  /** Individuals per batch (count). */
  readonly batchSize: number;
  /** Retries of a failed delivery (count). */
  readonly retries: number;
  /** First retry delay (seconds). */
  readonly retryDelaySeconds: number;
  /** Outbound-request policy of webhooks. */
  readonly policy: OutboundPolicy;
  /** A new webhook log row ID. */
  readonly attemptId = timeOrderedId;
  /** Endpoints of FCM and APNs. */
  readonly push: Config['push'];
  /**
   * Push transports by organisation and sealed credential, oldest first: one per credential, so
   * that its access token (FCM) or provider token and HTTP/2 session (APNs) serve every batch.
   */
  private readonly pushCache = new Map<string, Transport & { close(): void }>();

  constructor(
    private readonly db: Db,
    readonly master: MasterKey,
    readonly mailer: Mailer,
    config: Config,
  ) {
    this.batchSize = config.notifyBatchSize;
    this.retries = config.webhookRetries;
    this.retryDelaySeconds = config.webhookRetryDelaySeconds;
    this.policy = { allowHttpHosts: config.webhookAllowHttpHosts, dnsServers: config.dnsServers };
    this.push = config.push;
  }

  /** Closes the push transports' connections (when the workers stop). */
  close(): void {
    for (const t of this.pushCache.values()) t.close();
    this.pushCache.clear();
  }

  /** The organisation's transports as configured now, ready to deliver. */
  async transports(orgId: string): Promise<{ transports: Transports; webhookUrl: string }> {
    const row = await transportsStore.readTransports(this.db, orgId);
    const transports: Transports = {};
    if (row?.webhookUrl && row.webhookSecretSealed) {
      transports.webhook = webhookTransport(
        row.webhookUrl,
        this.master.open(row.webhookSecretSealed, WEBHOOK_SECRET_PURPOSE),
        this.policy,
      );
    }
    if (row?.emailEnabled) transports.email = emailTransport(this.mailer);
    if (row?.fcmKeySealed) {
      transports.fcm = this.cachedPush(`${orgId}.fcm.${row.fcmKeySealed}`, () => {
        const account = parseServiceAccount(this.master.open(row.fcmKeySealed!, FCM_KEY_PURPOSE));
        if (typeof account === 'string') throw new Error(`the stored FCM key ${account}`);
        return fcmTransport(account, this.push);
      });
    }
    if (row?.apnsKeySealed && row.apnsKeyId && row.apnsTeamId && row.apnsBundleId) {
      const { apnsKeyId: keyId, apnsTeamId: teamId, apnsBundleId: bundleId, apnsProduction: production } = row;
      transports.apns = this.cachedPush(
        `${orgId}.apns.${row.apnsKeySealed}.${keyId}.${teamId}.${bundleId}.${production}`,
        () => {
          const key = this.master.open(row.apnsKeySealed!, APNS_KEY_PURPOSE);
          return apnsTransport({ key, keyId, teamId, bundleId, production }, this.push);
        },
      );
    }
    return { transports, webhookUrl: row?.webhookUrl ?? '' };
  }

  /** The push transport cached under `key`, built by `build` when absent (the oldest is closed past PUSH_CACHE). */
  private cachedPush(key: string, build: () => Transport & { close(): void }): Transport {
    let transport = this.pushCache.get(key);
    if (!transport) {
      transport = build();
      this.pushCache.set(key, transport);
      if (this.pushCache.size > PUSH_CACHE) {
        const [oldest, t] = this.pushCache.entries().next().value!;
        this.pushCache.delete(oldest);
        t.close();
      }
    }
    return transport;
  }

  /**
   * The context of a job.
   * @throws Error when the organisation or purpose no longer exists (the batch then fails and, at
   *   its last retry, the job is marked failed).
   */
  async context(job: store.JobRow): Promise<JobContext> {
    const names = await store.namesFor(this.db, job.orgId, job.purposeId, job.attributeIds);
    const { transports, webhookUrl } = await this.transports(job.orgId);
    return {
      orgId: job.orgId,
      scope: {
        orgId: job.orgId,
        purposeId: job.purposeId,
        attributeIds: job.attributeIds,
        lawfulUsage: names.lawfulUsage,
      },
      notification: {
        jobId: job.id,
        orgId: job.orgId,
        orgName: names.orgName,
        purposeId: job.purposeId,
        purposeName: names.purposeName,
        attributeIds: job.attributeIds,
        attributeNames: names.attributeNames,
      },
      transports,
      webhookUrl,
    };
  }
}
