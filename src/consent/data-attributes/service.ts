/**
 * Rules of data attributes, called templates in the iGrant.io API family's paths and fields
 * (ISO/IEC TS 27560 "data" / "personal data category"). A data attribute has a name and the
 * purposes that use it; a purpose's consents are per attribute. Deleting a data attribute or
 * unlinking a purpose hides it from current consent records but keeps it for the evidence
 * (docs/decisions/0008-consent-records-and-catalogue.md).
 */

import { type AuditEntry, auditActor, auditChanges, recordAudit } from '../../organisations/index.js';
import { InvalidRequest, NotFound } from '../../platform/core/errors.js';
import type { Principal } from '../../platform/core/principal.js';
import type { Db } from '../../platform/db/open.js';
import { appendOrganisationEvents, type OutboxEvent } from '../../platform/events/outbox.js';
import type { EventSequencer } from '../../platform/events/sequencer.js';
import { isId } from '../../platform/util/ids.js';
import { dataAttributeEvent } from '../catalogue/events.js';
import * as store from './store.js';

/** A data attribute as answered (a `Template`): `{ID, Consent (the attribute name), PurposeIDs}`. */
export interface DataAttributeBody {
  ID: string;
  Consent: string;
  PurposeIDs: string[];
}

/** A data attribute as a request describes it (an element of `templates`). */
export interface DataAttributeInput {
  consent: string;
  purposeids?: string[];
}

const present = (row: store.DataAttributeRow): DataAttributeBody => ({
  ID: row.id,
  Consent: row.name,
  PurposeIDs: row.purposeIds,
});

/** A data attribute as consent evidence names it: live or deleted (ISO/IEC TS 27560 "PII type"). */
export interface RecordedDataAttribute {
  id: string;
  name: string;
  /** When it was deleted, or null while it is live. */
  deletedAt: Date | null;
}

/** An audit entry on a data attribute (docs/audit.md). */
const onAttribute = (
  actor: Principal,
  orgId: string,
  action: string,
  id: string,
  changes: AuditEntry['changes'] = {},
): AuditEntry => ({ orgId, ...auditActor(actor), action, target: { type: 'data_attribute', id }, changes, detail: {} });

/** Manages data attributes; the caller's right to do so is checked by the access policy. */
export class DataAttributeService {
  /**
   * @param db - the database.
   * @param events - woken after a change wrote its outbox events (docs/events.md).
   */
  constructor(
    private readonly db: Db,
    private readonly events?: EventSequencer,
  ) {}

  /**
   * The distinct purpose IDs of `inputs`, all live purposes of the organisation.
   * @throws {InvalidRequest} naming the first ID that is not.
   */
  private async checkPurposes(orgId: string, inputs: DataAttributeInput[]): Promise<void> {
    const wanted = [...new Set(inputs.flatMap((i) => i.purposeids ?? []))];
    const live = await store.livePurposeIds(this.db, orgId, wanted.filter(isId));
    const missing = wanted.find((id) => !live.has(id));
    if (missing !== undefined)
      throw new InvalidRequest(
        `Invalid request: purpose ${JSON.stringify(missing)} is not a purpose of this organisation`,
      );
  }

  /**
   * Creates data attributes, all or none, each with a `data_attribute.created` event (docs/events.md) and an audit
   * entry `template.create` with its name and purposes (docs/audit.md).
   * @param actor - who creates them.
   * @returns the created data attributes, in request order.
   * @throws {InvalidRequest} when a purpose ID is not one of the organisation's live purposes.
   */
  async create(actor: Principal, orgId: string, inputs: DataAttributeInput[]): Promise<DataAttributeBody[]> {
    await this.checkPurposes(orgId, inputs);
    const ids = await this.db.transaction(async (tx) => {
      const out: string[] = [];
      const events: OutboxEvent[] = [];
      for (const i of inputs) {
        const [name, purposeIds] = [i.consent.trim(), [...new Set(i.purposeids ?? [])]];
        const id = await store.insertDataAttribute(tx, orgId, name, purposeIds);
        out.push(id);
        events.push(dataAttributeEvent('created', orgId, id, name, purposeIds));
        await recordAudit(
          tx,
          onAttribute(actor, orgId, 'template.create', id, auditChanges(null, { name, purposeIds })),
        );
      }
      await appendOrganisationEvents(tx, orgId, events);
      return out;
    });
    this.events?.wake(orgId);
    const rows = new Map((await store.listDataAttributes(this.db, orgId, ids)).map((r) => [r.id, r]));
    return ids.map((id) => present(rows.get(id)!));
  }

  /** Live data attributes of the organisation. */
  async list(orgId: string): Promise<DataAttributeBody[]> {
    return (await store.listDataAttributes(this.db, orgId)).map(present);
  }

  /**
   * A data attribute of the organisation, deleted or not, as it is named now: for the consent
   * evidence, which keeps naming deleted attributes (consent receipts, docs/consents.md).
   * @returns null when the organisation has no data attribute with that ID (a malformed ID included).
   */
  async recorded(orgId: string, id: string): Promise<RecordedDataAttribute | null> {
    return isId(id) ? store.findDataAttribute(this.db, orgId, id) : null;
  }

  /**
   * Renames a data attribute and replaces its purposes, with a `data_attribute.updated` event (docs/events.md) and,
   * when something changed, an audit entry `template.update` with the old and new name and purposes (docs/audit.md).
   * @param actor - who changes it.
   * @throws {NotFound} when it is not a live data attribute of this organisation.
   * @throws {InvalidRequest} when a purpose ID is not one of the organisation's live purposes.
   */
  async update(actor: Principal, orgId: string, id: string, input: DataAttributeInput): Promise<DataAttributeBody> {
    if (!isId(id)) throw new NotFound('Template not found');
    await this.checkPurposes(orgId, [input]);
    const [name, purposeIds] = [input.consent.trim(), [...new Set(input.purposeids ?? [])]];
    const found = await this.db.transaction(async (tx) => {
      const [before] = await store.listDataAttributes(tx, orgId, [id]);
      if (!before || !(await store.updateDataAttribute(tx, orgId, id, name, purposeIds))) return false;
      const was = { name: before.name, purposeIds: [...before.purposeIds].sort() };
      const changes = auditChanges(was, { name, purposeIds: [...purposeIds].sort() });
      if (Object.keys(changes).length > 0)
        await recordAudit(tx, onAttribute(actor, orgId, 'template.update', id, changes));
      await appendOrganisationEvents(tx, orgId, [dataAttributeEvent('updated', orgId, id, name, purposeIds)]);
      return true;
    });
    if (!found) throw new NotFound('Template not found');
    this.events?.wake(orgId);
    return present((await store.listDataAttributes(this.db, orgId, [id]))[0]!);
  }

  /**
   * Deletes a data attribute (soft: evidence keeps it), from the API's `DELETE …/templates/{templateID}`
   * or the console; the deletion, its audit entry `template.delete` (`{templateId, name}`) and its `data_attribute.deleted`
   * event (docs/events.md) commit together.
   * @param actor - who deletes it, for the organisation audit log (docs/consents.md "Consent records").
   * @throws {NotFound} when it is not a live data attribute of this organisation; nothing is recorded then.
   */
  async delete(actor: Principal, orgId: string, id: string): Promise<void> {
    if (!isId(id)) throw new NotFound('Template not found');
    await this.db.transaction(async (tx) => {
      const name = await store.softDeleteDataAttribute(tx, orgId, id);
      if (name === null) throw new NotFound('Template not found');
      // Accountability (ASVS 5.0 V16.3.2): who removed a data attribute from what individuals are asked to consent to.
      await recordAudit(tx, { ...onAttribute(actor, orgId, 'template.delete', id), detail: { templateId: id, name } });
      await appendOrganisationEvents(tx, orgId, [dataAttributeEvent('deleted', orgId, id, name)]);
    });
    this.events?.wake(orgId);
  }
}
