/**
 * Rules of an organisation's usage purposes (GDPR Art. 5(1)(b) purpose limitation; ISO/IEC TS
 * 27560 "purpose"). A deleted purpose disappears from the configuration and from current
 * consent records, but is never erased: consent evidence keeps referring to it
 * (docs/decisions/0008-consent-records-and-catalogue.md).
 */

import { type AuditEntry, auditActor, auditChanges, recordAudit } from '../../organisations/index.js';
import { NotFound } from '../../platform/core/errors.js';
import type { Principal } from '../../platform/core/principal.js';
import type { Db, Executor } from '../../platform/db/open.js';
import { appendOrganisationEvents } from '../../platform/events/outbox.js';
import type { EventSequencer } from '../../platform/events/sequencer.js';
import { isId } from '../../platform/util/ids.js';
import { purposeEvent } from '../catalogue/events.js';
import { type OrganisationBody, type PurposeBody, presentOrganisation, presentPurpose } from './present.js';
import * as store from './store.js';

/** A purpose as a request describes it (body keys already canonicalised). */
export interface PurposeInput {
  name: string;
  description?: string;
  lawfulusage?: boolean;
  policyurl?: string;
}

function fields(input: PurposeInput): store.PurposeFields {
  return {
    name: input.name.trim(),
    description: input.description?.trim() ?? '',
    lawfulUsage: input.lawfulusage ?? false,
    policyUrl: input.policyurl?.trim() ?? '',
  };
}

/** A purpose as consent evidence names it: live or deleted (ISO/IEC TS 27560 "purpose"). */
export interface RecordedPurpose {
  id: string;
  name: string;
  description: string;
  /** True when the lawful basis is not consent (GDPR Art. 6(1)(b)-(f)). */
  lawfulUsage: boolean;
  policyUrl: string;
  /** When it was deleted, or null while it is live. */
  deletedAt: Date | null;
}

/** Writes `purpose.<what>` events of the rows in the change's transaction (docs/events.md). */
function emit(tx: Executor, orgId: string, what: 'created' | 'updated', rows: store.PurposeRow[]): Promise<void> {
  return appendOrganisationEvents(
    tx,
    orgId,
    rows.map((row) => purposeEvent(what, row)),
  );
}

/** The audited fields of a purpose (docs/audit.md "Entries", `Changes`). */
const audited = (row: store.PurposeFields) => ({
  name: row.name,
  description: row.description,
  lawfulUsage: row.lawfulUsage,
  policyUrl: row.policyUrl,
});

/** An audit entry on a purpose (docs/audit.md). */
const onPurpose = (
  actor: Principal,
  orgId: string,
  action: string,
  purposeId: string,
  changes: AuditEntry['changes'] = {},
): AuditEntry => ({
  orgId,
  ...auditActor(actor),
  action,
  target: { type: 'purpose', id: purposeId },
  changes,
  detail: {},
});

/** Manages purposes; the caller's right to do so is checked by the access policy. */
export class PurposeService {
  /**
   * @param db - the database.
   * @param events - woken after a change wrote its outbox events (docs/events.md).
   */
  constructor(
    private readonly db: Db,
    private readonly events?: EventSequencer,
  ) {}

  /**
   * Creates purposes and answers the organisation with all its live purposes; each gets a `purpose.created` event
   * (docs/events.md) and an audit entry `purpose.create` with its fields (docs/audit.md) in the same transaction.
   * @param actor - who creates them.
   * @param orgId - an existing organisation (checked by the guard).
   * @throws {NotFound} when the organisation vanished meanwhile.
   */
  async create(actor: Principal, orgId: string, items: PurposeInput[]): Promise<OrganisationBody> {
    await this.db.transaction(async (tx) => {
      const rows = await store.insertPurposes(tx, orgId, items.map(fields));
      for (const row of rows)
        await recordAudit(tx, onPurpose(actor, orgId, 'purpose.create', row.id, auditChanges(null, audited(row))));
      await emit(tx, orgId, 'created', rows);
    });
    this.events?.wake(orgId);
    return this.organisation(orgId);
  }

  /** The organisation with its live purposes. @throws {NotFound} */
  async organisation(orgId: string): Promise<OrganisationBody> {
    const found = await store.findOrganisation(this.db, orgId);
    if (!found) throw new NotFound('Organisation not found');
    return presentOrganisation(found, await store.listPurposes(this.db, orgId));
  }

  /** Live purposes of the organisation. */
  async list(orgId: string): Promise<PurposeBody[]> {
    return (await store.listPurposes(this.db, orgId)).map(presentPurpose);
  }

  /** One live purpose. @throws {NotFound} when it is not a live purpose of this organisation. */
  async get(orgId: string, purposeId: string): Promise<PurposeBody> {
    const row = isId(purposeId) ? await store.findPurpose(this.db, orgId, purposeId) : null;
    if (!row) throw new NotFound('Purpose not found');
    return presentPurpose(row);
  }

  /**
   * A purpose of the organisation, deleted or not, as it is configured now: for the consent
   * evidence, which keeps naming deleted purposes (consent receipts, docs/consents.md).
   * @returns null when the organisation has no purpose with that ID (a malformed ID included).
   */
  async recorded(orgId: string, purposeId: string): Promise<RecordedPurpose | null> {
    const row = isId(purposeId) ? await store.findPurpose(this.db, orgId, purposeId, false) : null;
    if (!row) return null;
    const { id, name, description, lawfulUsage, policyUrl, deletedAt } = row;
    return { id, name, description, lawfulUsage, policyUrl, deletedAt };
  }

  /**
   * Replaces a purpose's fields, with a `purpose.updated` event (docs/events.md) and, when a field changed, an audit
   * entry `purpose.update` with each changed field's old and new value (docs/audit.md), in the same transaction.
   * @param actor - who changes it.
   * @throws {NotFound} when it is not a live purpose of this organisation; nothing is emitted then.
   */
  async update(actor: Principal, orgId: string, purposeId: string, input: PurposeInput): Promise<PurposeBody> {
    if (!isId(purposeId)) throw new NotFound('Purpose not found');
    const row = await this.db.transaction(async (tx) => {
      const before = await store.findPurpose(tx, orgId, purposeId);
      const updated = before && (await store.updatePurpose(tx, orgId, purposeId, fields(input)));
      if (!updated) return null;
      const changes = auditChanges(audited(before), audited(updated));
      if (Object.keys(changes).length > 0)
        await recordAudit(tx, onPurpose(actor, orgId, 'purpose.update', purposeId, changes));
      await emit(tx, orgId, 'updated', [updated]);
      return updated;
    });
    if (!row) throw new NotFound('Purpose not found');
    this.events?.wake(orgId);
    return presentPurpose(row);
  }

  /**
   * Deletes a purpose (soft: evidence keeps it), from the API's `DELETE …/purposes/{purposeID}` or
   * the console; the deletion, its audit entry `purpose.delete` (`{purposeId, name}`) and its `purpose.deleted` event
   * (docs/events.md) commit together.
   * @param actor - who deletes it, for the organisation audit log (docs/consents.md "Consent records").
   * @throws {NotFound} when it is not a live purpose of this organisation; nothing is recorded then.
   */
  async delete(actor: Principal, orgId: string, purposeId: string): Promise<void> {
    if (!isId(purposeId)) throw new NotFound('Purpose not found');
    await this.db.transaction(async (tx) => {
      const name = await store.softDeletePurpose(tx, orgId, purposeId);
      if (name === null) throw new NotFound('Purpose not found');
      // Accountability (ASVS 5.0 V16.3.2): who removed a purpose from what individuals are asked to consent to.
      await recordAudit(tx, { ...onPurpose(actor, orgId, 'purpose.delete', purposeId), detail: { purposeId, name } });
      await appendOrganisationEvents(tx, orgId, [
        purposeEvent('deleted', { orgId, id: purposeId, name, description: '', lawfulUsage: false, policyUrl: '' }),
      ]);
    });
    this.events?.wake(orgId);
  }
}
