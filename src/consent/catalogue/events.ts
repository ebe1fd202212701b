/**
 * The outbox events of the catalogue (docs/events.md "What is emitted", "Payloads"): `purpose.*` and
 * `data_attribute.*`, built the same way by the API, the console and `assent import`.
 */
import type { OutboxEvent } from '../../platform/events/outbox.js';

/** A purpose as its events carry it. */
export interface PurposeFacts {
  orgId: string;
  id: string;
  name: string;
  description: string;
  lawfulUsage: boolean;
  policyUrl: string;
}

/**
 * A `purpose.created|updated|deleted` event. `data`: `OrganizationID`, `PurposeID`, `Name`, and, unless deleted,
 * `Description`, `LawfulUsage`, `PolicyURL`.
 */
export function purposeEvent(what: 'created' | 'updated' | 'deleted', p: PurposeFacts): OutboxEvent {
  const data: Record<string, unknown> = { OrganizationID: p.orgId, PurposeID: p.id, Name: p.name };
  if (what !== 'deleted')
    Object.assign(data, { Description: p.description, LawfulUsage: p.lawfulUsage, PolicyURL: p.policyUrl });
  return { type: `purpose.${what}`, subject: null, data };
}

/**
 * A `data_attribute.created|updated|deleted` event. `data`: `OrganizationID`, `AttributeID`, `Name`, and `PurposeIDs`
 * when given (not for a deletion).
 * @param purposeIds - the purposes it belongs to.
 */
export function dataAttributeEvent(
  what: 'created' | 'updated' | 'deleted',
  orgId: string,
  id: string,
  name: string,
  purposeIds?: string[],
): OutboxEvent {
  return {
    type: `data_attribute.${what}`,
    subject: null,
    data: { OrganizationID: orgId, AttributeID: id, Name: name, ...(purposeIds ? { PurposeIDs: purposeIds } : {}) },
  };
}
