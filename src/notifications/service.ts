/**
 * The delivery side of the special consent request (docs/api.md "Permissions and consents", the 202 operation): its job, queued
 * once consent/requests/service.ts has checked what it asks about; and the organisation's notification
 * transports.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import type { ConsentRequestDelivery, JobView } from '../consent/index.js';
import { auditActor, recordAudit } from '../organisations/index.js';
import { InvalidRequest, NotFound } from '../platform/core/errors.js';
import type { Principal } from '../platform/core/principal.js';
import { type Db, rawIn } from '../platform/db/open.js';
import { keysetPage } from '../platform/http/pagination.js';
import { QUEUES, type Queue } from '../platform/jobs/queue.js';
import { urlProblem } from '../platform/net/outbound.js';
import { isId } from '../platform/util/ids.js';
import { type AttemptRow, attemptsPage } from './attempts-store.js';
import { queueJobId } from './ids.js';
import { type NotificationSetup, WEBHOOK_SECRET_PURPOSE } from './setup.js';
import * as store from './store.js';
import { applyPush, type PushInput, type PushView, pushChanges, pushView } from './transports/push-settings.js';
import * as transportsStore from './transports/store.js';

/** The transports as shown to admins; the secret only when it was just generated; never a push key. */
export interface TransportsView extends PushView {
  Email: { Enabled: boolean; Delivery: 'smtp' | 'outbox' };
  Webhook: { Enabled: boolean; URL: string; Secret?: string };
}

/** A change of transports; an absent field keeps its setting. */
export interface TransportsInput extends PushInput {
  email?: { enabled: boolean };
  /** `null` removes the webhook. */
  webhook?: { url: string } | null;
  /** Generate a new webhook secret even though the URL is unchanged. */
  rotatesecret?: boolean;
}

const iso = (d: Date | null) => (d ? d.toISOString() : '');

/** Transports, requests, jobs and the webhook log of organisations. */
export class NotificationService implements ConsentRequestDelivery {
  constructor(
    private readonly db: Db,
    private readonly queue: Queue,
    private readonly setup: NotificationSetup,
    /** Wakes this process's batch workers once a request is queued. */
    private readonly wake: () => void,
  ) {}

  /** The organisation's transports. */
  async transports(orgId: string): Promise<TransportsView> {
    const row = await transportsStore.readTransports(this.db, orgId);
    return this.view(row);
  }

  /**
   * Changes the organisation's transports. Setting a webhook URL (or `rotatesecret`) generates a
   * new signing secret, answered once in `Webhook.Secret` and stored sealed.
   * The push credentials are checked and sealed (`push-settings.ts`). The change and the audit
   * entry `notifications.transports.update` (what changed, never a secret or key) are one transaction.
   * @param actor - who changes them, for the audit log.
   * @throws {InvalidRequest} when the URL is not an absolute https URL (or an allowed http host), or a
   *   push key is malformed.
   */
  async updateTransports(actor: Principal, orgId: string, input: TransportsInput): Promise<TransportsView> {
    const row = await transportsStore.readTransports(this.db, orgId);
    let webhookUrl = row?.webhookUrl ?? null;
    let sealed = row?.webhookSecretSealed ?? null;
    let secret: string | undefined;
    if (input.webhook === null) [webhookUrl, sealed] = [null, null];
    else if (input.webhook !== undefined) {
      const problem = urlProblem(input.webhook.url, this.setup.policy);
      if (problem) throw new InvalidRequest(`webhook.url ${problem}`);
      if (input.webhook.url !== webhookUrl || !sealed) secret = newSecret();
      webhookUrl = input.webhook.url;
    }
    if (input.rotatesecret && webhookUrl) secret = newSecret();
    if (secret) sealed = this.setup.master.seal(secret, WEBHOOK_SECRET_PURPOSE);
    const next = {
      ...applyPush(row, input, this.setup.master),
      orgId,
      emailEnabled: input.email?.enabled ?? row?.emailEnabled ?? false,
      webhookUrl,
      webhookSecretSealed: sealed,
    };
    const detail = transportChanges(row, next, Boolean(secret));
    // Nothing changed (the same settings sent again): nothing is written, and no entry claims a change.
    if (Object.keys(detail).length === 0) return this.view(row);
    await this.db.transaction(async (tx) => {
      await transportsStore.writeTransports(tx, next);
      // Accountability (ASVS 5.0 V16.3.2): who changed where the organisation's notifications and signing
      // secrets go; the entry names what changed, never a secret or key.
      await recordAudit(tx, {
        orgId,
        ...auditActor(actor),
        action: 'notifications.transports.update',
        detail,
      });
    });
    const view = this.view({ ...next, updatedAt: new Date() });
    if (secret) view.Webhook.Secret = secret;
    return view;
  }

  /**
   * Queues a special consent request that consent/requests/service.ts has checked: one job, queued in the
   * same transaction as its row and its audit entry `consent-request.start` (docs/audit.md).
   * @param wanted - the purpose's attributes to ask about: distinct, at least one.
   * @returns the job's ID.
   * An organisation without any transport still gets its job (docs/api.md "Permissions and consents": the request answers 202): the job counts
   * everyone as `Skipped` and says why in `SkippedReason`.
   */
  async enqueue(principal: Principal, orgId: string, purposeId: string, wanted: string[]): Promise<string> {
    const id = randomUUID();
    await this.db.transaction(async (tx) => {
      const requestedBy = { userId: principal.userId, ...(principal.apiKeyId ? { apiKeyId: principal.apiKeyId } : {}) };
      await store.insertJob(tx, { id, orgId, purposeId, attributeIds: wanted, requestedBy });
      // Accountability: who asked every subscriber of the organisation to decide again, on which attributes.
      await recordAudit(tx, {
        orgId,
        ...auditActor(principal),
        action: 'consent-request.start',
        target: { type: 'consent_request', id },
        detail: { purposeId, attributeIds: wanted },
      });
      await this.queue.send(
        QUEUES.consentRequestBatch,
        { jobId: id, batch: 1 },
        { id: queueJobId(id, 'batch.1'), db: rawIn(tx) },
      );
    });
    this.wake();
    return id;
  }

  /** A job of the organisation. @throws {NotFound} when it is not one. */
  async job(orgId: string, jobId: string): Promise<JobView> {
    const row = isId(jobId) ? await store.findJob(this.db, orgId, jobId) : null;
    if (!row) throw new NotFound('Job not found');
    return {
      ID: row.id,
      Type: 'consent-request',
      State: row.state,
      PurposeID: row.purposeId,
      AttributeIDs: row.attributeIds,
      Notified: row.notified,
      Skipped: row.skipped,
      SkippedReason: row.skipReason ?? '',
      Failed: row.failed,
      ByTransport: {
        Webhook: countsOf(row, 'webhook'),
        Email: countsOf(row, 'email'),
        FCM: countsOf(row, 'fcm'),
        APNs: countsOf(row, 'apns'),
      },
      Error: row.error ?? '',
      CreatedAt: iso(row.createdAt),
      StartedAt: iso(row.startedAt),
      FinishedAt: iso(row.finishedAt),
    };
  }

  /** One page of the webhook log, newest first. @param startId - exclusive; a malformed one gives an empty page. */
  async attempts(
    orgId: string,
    startId: string | undefined,
    limit: number,
  ): Promise<{ items: AttemptRow[]; next?: string }> {
    if (startId !== undefined && !isId(startId)) return { items: [] };
    return keysetPage(await attemptsPage(this.db, orgId, startId, limit + 1), limit, (r) => r.id);
  }

  private view(row: transportsStore.TransportRow | null): TransportsView {
    return {
      ...pushView(row),
      Email: { Enabled: row?.emailEnabled ?? false, Delivery: this.setup.mailer.kind },
      Webhook: { Enabled: Boolean(row?.webhookUrl), URL: row?.webhookUrl ?? '' },
    };
  }
}

/** A job's counts of one transport. */
function countsOf(row: store.JobRow, transport: string): { Notified: number; Failed: number } {
  return { Notified: row.notifiedBy[transport] ?? 0, Failed: row.failedBy[transport] ?? 0 };
}

/** A webhook signing secret: 256 random bits. */
function newSecret(): string {
  return `whsec_${randomBytes(32).toString('base64url')}`;
}

/**
 * What a change of transports changed, for its audit entry (docs/notifications.md "Transports"),
 * comparing the stored row with the one to store: `email` (its new setting), `webhook` (its new URL,
 * or `removed` when there was one), `webhookSecret` (`new` when one was generated), and the push
 * transports' changes (`pushChanges`). A setting sent again unchanged is not named; never a secret or key.
 * @param before - the stored row, or null when none was ever stored.
 * @param after - the row to store.
 * @returns the changes; empty when nothing changed.
 */
function transportChanges(
  before: transportsStore.TransportRow | null,
  after: Omit<transportsStore.TransportRow, 'updatedAt'>,
  newSecret: boolean,
): Record<string, unknown> {
  const changes: Record<string, unknown> = {};
  if (after.emailEnabled !== (before?.emailEnabled ?? false)) changes.email = after.emailEnabled;
  const hook = before?.webhookUrl ?? null;
  if (after.webhookUrl !== hook) changes.webhook = after.webhookUrl ?? 'removed';
  if (newSecret) changes.webhookSecret = 'new';
  return { ...changes, ...pushChanges(before, after) };
}
