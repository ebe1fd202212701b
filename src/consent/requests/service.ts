/**
 * The rule of starting a special consent request (docs/api.md "Permissions and consents", the 202 operation): which of a
 * purpose's data attributes the organisation asks its individuals about. Who may start one is the
 * access policy's `consent.request.create` row (docs/access-policy.md). The delivery (queue,
 * transports, retries, the webhook log) is the notifications domain's (docs/notifications.md).
 */

import { InvalidRequest, NotFound } from '../../platform/core/errors.js';
import type { Principal } from '../../platform/core/principal.js';
import type { Db } from '../../platform/db/open.js';
import { isId } from '../../platform/util/ids.js';
import { loadCatalogue } from '../catalogue/store.js';

/** A job as shown at `GET .../jobs/{jobID}`. */
export interface JobView {
  ID: string;
  Type: 'consent-request';
  State: string;
  PurposeID: string;
  AttributeIDs: string[];
  Notified: number;
  Skipped: number;
  /** Why individuals were skipped; "" when none was. */
  SkippedReason: string;
  Failed: number;
  /** `Notified` and `Failed` by transport. */
  ByTransport: Record<'Webhook' | 'Email' | 'FCM' | 'APNs', { Notified: number; Failed: number }>;
  Error: string;
  CreatedAt: string;
  StartedAt: string;
  FinishedAt: string;
}

/**
 * The delivery side of the special consent request, which the notifications context provides and the composition root
 * injects (docs/notifications.md "Special consent request"): the consent context names what it needs here and never
 * imports the notifications context, which stands above it (docs/development.md "Bounded contexts").
 */
export interface ConsentRequestDelivery {
  /**
   * Queues a checked request and keeps its job, in one transaction.
   * @param wanted - the data attribute IDs to ask about, already checked against the purpose.
   * @returns the job's ID.
   */
  enqueue(principal: Principal, orgId: string, purposeId: string, wanted: string[]): Promise<string>;
  /**
   * The job as shown at `GET …/jobs/{jobID}`.
   * @throws {NotFound} when the organisation has no such job.
   */
  job(orgId: string, jobId: string): Promise<JobView>;
}

/** Starts special consent requests and answers their jobs. */
export class ConsentRequestService {
  constructor(
    private readonly db: Db,
    /** Queues the checked request and keeps its job (the notifications domain). */
    private readonly notifications: ConsentRequestDelivery,
  ) {}

  /**
   * Starts a special consent request about some or all attributes of a purpose.
   * @param principal - who asks; recorded on the job.
   * @param attributeIds - the purpose's attributes to ask about (repeats count once); undefined
   *   means all of them (docs/api.md "Permissions and consents": the body is optional).
   * @returns the job's ID.
   * @throws {NotFound} for a purpose not of the organisation, or an attribute not of the purpose.
   * @throws {InvalidRequest} when the purpose has no attributes to ask about.
   */
  async start(
    principal: Principal,
    orgId: string,
    purposeId: string,
    attributeIds: string[] | undefined,
  ): Promise<string> {
    // Read fresh, not from a cache: the job is decided once, on what is configured now.
    const purpose = isId(purposeId) ? (await loadCatalogue(this.db, orgId))?.byId.get(purposeId) : undefined;
    if (!purpose) throw new NotFound('Purpose not found');
    const live = purpose.attributes.map((a) => a.id);
    const wanted = attributeIds === undefined ? live : [...new Set(attributeIds)];
    const unknown = wanted.find((id) => !live.includes(id));
    if (unknown !== undefined) throw new NotFound(`Attribute ${unknown.slice(0, 64)} not found in this purpose`);
    if (wanted.length === 0) throw new InvalidRequest('The purpose has no data attributes to ask about');
    return this.notifications.enqueue(principal, orgId, purposeId, wanted);
  }

  /** A job of the organisation: its state, counts and times. @throws {NotFound} when it is not one. */
  async job(orgId: string, jobId: string): Promise<JobView> {
    return this.notifications.job(orgId, jobId);
  }
}
