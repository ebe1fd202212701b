/**
 * What the special consent request needs from the configuration and the store, gathered for one
 * job: its scope, the names for the message, and the organisation's live transports.
 */
import type { Config } from '../config.js';
import type { MasterKey } from '../crypto/master-key.js';
import type { Db } from '../db/open.js';
import type { Mailer } from '../mail/mailer.js';
import type { OutboundPolicy } from '../net/outbound.js';
import { timeOrderedId } from './ids.js';
import * as store from './store.js';
import { emailTransport, type NotificationContext, type Transport, webhookTransport } from './transports.js';

/** The sealing purpose of webhook secrets (HKDF label and AAD, see `crypto/master-key.ts`). */
export const WEBHOOK_SECRET_PURPOSE = 'webhook-secret';

/** The organisation's usable transports. */
export interface Transports {
  webhook?: Transport;
  email?: Transport;
}

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
  }

  /** The organisation's transports as configured now, ready to deliver. */
  async transports(orgId: string): Promise<{ transports: Transports; webhookUrl: string }> {
    const row = await store.readTransports(this.db, orgId);
    const transports: Transports = {};
    if (row?.webhookUrl && row.webhookSecretSealed) {
      transports.webhook = webhookTransport(
        row.webhookUrl,
        this.master.open(row.webhookSecretSealed, WEBHOOK_SECRET_PURPOSE),
        this.policy,
      );
    }
    if (row?.emailEnabled) transports.email = emailTransport(this.mailer);
    return { transports, webhookUrl: row?.webhookUrl ?? '' };
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
