/**
 * The rules of event webhooks (docs/events.md "Webhooks"): what a webhook may name, its secret (generated or given,
 * shown once, sealed under the master key), enabling and disabling, pings, redeliveries and the deliveries log. Every
 * change is written with its audit entry in one transaction (ASVS 5.0 V16.3.2).
 */
import { randomUUID } from 'node:crypto';
import { auditActor, recordAudit } from '../../organisations/index.js';
import { InvalidRequest, NotFound } from '../../platform/core/errors.js';
import type { Principal } from '../../platform/core/principal.js';
import type { MasterKey } from '../../platform/crypto/master-key.js';
import type { Db, Executor } from '../../platform/db/open.js';
import { keysetPage } from '../../platform/http/pagination.js';
import { checkTarget, OutboundError, type OutboundPolicy, urlProblem } from '../../platform/net/outbound.js';
import { isId } from '../../platform/util/ids.js';
import { timeOrderedId } from '../ids.js';
import type { WebhookDelivery } from './dispatcher.js';
import * as log from './log-store.js';
import type { DeliveryView, WebhookInput, WebhookView } from './schemas.js';
import { EVENT_WEBHOOK_SECRET_PURPOSE, newWebhookSecret, webhookSecretProblem } from './signing.js';
import * as store from './store.js';
import { deliveryView, webhookView } from './views.js';

/** How long a rotated-out secret keeps signing beside the new one (seconds): receivers switch without a gap. */
export const PREVIOUS_SECRET_GRACE_SECONDS = 24 * 3600;

/** Organisations' event webhooks. */
export class WebhookService {
  constructor(
    private readonly db: Db,
    private readonly master: MasterKey,
    /** Puts every event of the organisation committed before the call in its feed (sealed and numbered). */
    private readonly flushFeed: (orgId: string) => Promise<void>,
    /** Sends a ping now (ping.ts `pingWebhook`), and what delivers, to be woken for a redelivery. */
    private readonly dispatcher: {
      ping: (webhook: store.WebhookTarget) => Promise<string>;
      delivery: Pick<WebhookDelivery, 'kick'>;
    },
    private readonly policy: OutboundPolicy,
  ) {}

  /** The organisation's webhooks, oldest first. */
  async list(orgId: string): Promise<WebhookView[]> {
    return (await store.listWebhooks(this.db, orgId)).map((w) => webhookView(w));
  }

  /**
   * One webhook.
   * @throws {NotFound} when the organisation has no webhook of that ID.
   */
  async read(orgId: string, id: string): Promise<WebhookView> {
    return webhookView(await this.existing(this.db, orgId, id));
  }

  /**
   * Registers a webhook; it receives the events committed from now on. The answer carries the secret, once.
   * @throws {InvalidRequest} when the URL is refused (not https, or naming or resolving to a non-public address: the
   *   SSRF guard), an event type is unknown, or a given secret is not `whsec_` and base64 of 24 to 64 bytes.
   */
  async create(actor: Principal, orgId: string, input: WebhookInput): Promise<WebhookView> {
    await this.checkInput(input);
    if (input.secret !== undefined) {
      const problem = webhookSecretProblem(input.secret);
      if (problem) throw new InvalidRequest(`secret ${problem}`);
    }
    const secret = input.secret ?? newWebhookSecret();
    const now = new Date();
    const id = randomUUID();
    // Events committed before the webhook existed are not its: it starts at the feed's head.
    await this.flushFeed(orgId);
    const row = await this.db.transaction(async (tx) => {
      const fields = {
        id,
        orgId,
        payloadUrl: input.payloadUrl,
        subscribedEvents: [...new Set(input.subscribedEvents)],
        disabled: input.disabled ?? false,
        disabledReason: input.disabled ? 'admin' : null,
        contentType: input.contentType ?? 'application/json',
        // Threat: a leaked database must not let anyone sign events a receiver trusts.
        secretSealed: this.master.seal(secret, EVENT_WEBHOOK_SECRET_PURPOSE),
        lastSeq: await store.feedHead(tx, orgId),
        createdAt: now,
        updatedAt: now,
      };
      await store.insertWebhook(tx, fields);
      await this.audit(tx, actor, orgId, 'webhook.create', {
        webhookId: id,
        payloadUrl: fields.payloadUrl,
        subscribedEvents: fields.subscribedEvents,
        disabled: fields.disabled,
        secretGiven: input.secret !== undefined,
      });
      return (await store.readWebhook(tx, orgId, id))!;
    });
    return webhookView(row, secret);
  }

  /**
   * Replaces a webhook's settings (its secret stays; rotate it with `rotateSecret`). Enabling a disabled webhook
   * starts it at the feed's head: events of the time it was disabled are read from the feed.
   * @throws {NotFound} when the organisation has no webhook of that ID.
   * @throws {InvalidRequest} as `create` does.
   */
  async update(actor: Principal, orgId: string, id: string, input: WebhookInput): Promise<WebhookView> {
    if (input.secret !== undefined) throw new InvalidRequest('secret cannot be set here: rotate it (POST …/secret)');
    await this.checkInput(input);
    await this.flushFeed(orgId);
    const row = await this.db.transaction(async (tx) => {
      const before = await this.existing(tx, orgId, id, true);
      const disabled = input.disabled ?? false;
      const next = {
        payloadUrl: input.payloadUrl,
        subscribedEvents: [...new Set(input.subscribedEvents)],
        disabled,
        contentType: input.contentType ?? 'application/json',
      };
      const changed = Object.keys(next).filter(
        (k) => JSON.stringify(next[k as keyof typeof next]) !== JSON.stringify(before[k as keyof typeof before]),
      );
      if (changed.length === 0) return before;
      const enabling = before.disabled && !disabled;
      await store.updateWebhook(tx, id, {
        ...next,
        disabledReason: disabled ? (before.disabled ? before.disabledReason : 'admin') : null,
        ...(enabling ? { lastSeq: await store.feedHead(tx, orgId), failingSince: null } : {}),
        updatedAt: new Date(),
      });
      await this.audit(tx, actor, orgId, 'webhook.update', {
        webhookId: id,
        changed: Object.fromEntries(
          changed.map((k) => [k, { from: before[k as keyof typeof before], to: next[k as keyof typeof next] }]),
        ),
      });
      return (await store.readWebhook(tx, orgId, id))!;
    });
    return webhookView(row);
  }

  /**
   * Deletes a webhook with its deliveries log.
   * @throws {NotFound} when the organisation has no webhook of that ID.
   */
  async remove(actor: Principal, orgId: string, id: string): Promise<void> {
    await this.db.transaction(async (tx) => {
      const before = await this.existing(tx, orgId, id, true);
      await store.deleteWebhook(tx, id);
      await this.audit(tx, actor, orgId, 'webhook.delete', { webhookId: id, payloadUrl: before.payloadUrl });
    });
  }

  /**
   * Replaces the secret: a new one (generated) signs from now on; the previous one also signs for 24 hours, so that
   * a receiver that verifies with either (Standard Webhooks signatures list both) switches without a gap.
   * @returns the webhook with the new secret, shown once.
   * @throws {NotFound} when the organisation has no webhook of that ID.
   */
  async rotateSecret(actor: Principal, orgId: string, id: string): Promise<WebhookView> {
    const secret = newWebhookSecret();
    const row = await this.db.transaction(async (tx) => {
      const before = await this.existing(tx, orgId, id, true);
      await store.updateWebhook(tx, id, {
        secretSealed: this.master.seal(secret, EVENT_WEBHOOK_SECRET_PURPOSE),
        previousSecretSealed: before.secretSealed,
        previousSecretUntil: new Date(Date.now() + PREVIOUS_SECRET_GRACE_SECONDS * 1000),
        updatedAt: new Date(),
      });
      await this.audit(tx, actor, orgId, 'webhook.secret.rotate', { webhookId: id });
      return (await store.readWebhook(tx, orgId, id))!;
    });
    return webhookView(row, secret);
  }

  /**
   * Sends a `webhook.ping` event to the webhook now, once (no retries), even when it is disabled, and logs it as a
   * delivery.
   * @returns the delivery with its attempt.
   * @throws {NotFound} when the organisation has no webhook of that ID.
   */
  async ping(orgId: string, id: string): Promise<DeliveryView> {
    const webhook = await this.existing(this.db, orgId, id);
    return this.delivery(id, await this.dispatcher.ping(webhook));
  }

  /**
   * One page of the webhook's deliveries, newest first, each with its attempts.
   * @param startId - exclusive: the page starts after this delivery; undefined for the newest.
   * @param limit - page size (count; `pageLimit` has checked it).
   * @param state - only `pending`, `succeeded` or `failed` deliveries, when given.
   * @throws {NotFound} when the organisation has no webhook of that ID.
   * @throws {InvalidRequest} when `startId` is not a delivery ID or `state` not one of the three.
   */
  async deliveries(
    orgId: string,
    id: string,
    startId: string | undefined,
    limit: number,
    state: string | undefined,
  ): Promise<{ items: DeliveryView[]; next?: string }> {
    await this.existing(this.db, orgId, id);
    if (startId !== undefined && !isId(startId)) throw new InvalidRequest('startid is not a delivery ID');
    if (state !== undefined && !['pending', 'succeeded', 'failed'].includes(state))
      throw new InvalidRequest('state must be pending, succeeded or failed');
    const rows = await log.deliveriesPage(this.db, id, startId, limit, state);
    const page = keysetPage(rows, limit, (r) => r.id);
    return { items: page.items.map(deliveryView), ...(page.next ? { next: page.next } : {}) };
  }

  /**
   * Sends a delivery's event again, as a new delivery with the same event ID (receivers deduplicate by it), due now,
   * on a lane of its own (it neither waits for nor holds up the individual's later events).
   * @returns the new delivery.
   * @throws {NotFound} when the organisation has no such webhook or the webhook no such delivery.
   */
  async redeliver(actor: Principal, orgId: string, id: string, deliveryId: string): Promise<DeliveryView> {
    const newId = timeOrderedId();
    await this.db.transaction(async (tx) => {
      await this.existing(tx, orgId, id);
      const original = isId(deliveryId) ? await log.readDelivery(tx, id, deliveryId) : undefined;
      if (!original) throw new NotFound('no such delivery of this webhook');
      const now = new Date();
      await log.insertDelivery(tx, {
        id: newId,
        webhookId: id,
        orgId,
        eventId: original.eventId,
        eventType: original.eventType,
        lane: newId,
        state: 'pending',
        nextAt: now,
        body: original.body,
        redeliveryOf: original.id,
        createdAt: now,
      });
      await this.audit(tx, actor, orgId, 'webhook.redeliver', {
        webhookId: id,
        deliveryId: newId,
        redeliveryOf: original.id,
        eventId: original.eventId,
      });
    });
    this.dispatcher.delivery.kick();
    return this.delivery(id, newId);
  }

  private async delivery(webhookId: string, deliveryId: string): Promise<DeliveryView> {
    return deliveryView((await log.readDelivery(this.db, webhookId, deliveryId))!);
  }

  /** The URL through the SSRF guard (literal and resolved addresses), the types known. */
  private async checkInput(input: WebhookInput): Promise<void> {
    const problem = urlProblem(input.payloadUrl, this.policy);
    if (problem) throw new InvalidRequest(`payloadUrl ${problem}`);
    try {
      // Threat: SSRF through a name that resolves to Assent's own network; refused when saved, and again at each send.
      await checkTarget(input.payloadUrl, this.policy);
    } catch (err) {
      if (err instanceof OutboundError && err.kind === 'blocked') throw new InvalidRequest(`payloadUrl ${err.message}`);
      // A name that does not resolve now may later: each send checks again.
    }
    if (input.contentType !== undefined && input.contentType !== 'application/json')
      throw new InvalidRequest('contentType must be application/json');
  }

  private async existing(db: Executor, orgId: string, id: string, lock = false): Promise<store.WebhookRow> {
    const row = isId(id) ? await store.readWebhook(db, orgId, id, lock) : undefined;
    if (!row) throw new NotFound('no such webhook in this organisation');
    return row;
  }

  private audit(tx: Executor, actor: Principal, orgId: string, action: string, detail: Record<string, unknown>) {
    // Accountability (ASVS 5.0 V16.3.2): who changed where the organisation's events go; never a secret.
    const target = typeof detail.webhookId === 'string' ? { type: 'webhook', id: detail.webhookId } : undefined;
    return recordAudit(tx, { orgId, ...auditActor(actor), action, target, detail });
  }
}
