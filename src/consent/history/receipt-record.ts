/**
 * The consent receipt of one consent event: the event in the fields of an ISO/IEC TS 27560:2023
 * consent record, with the states and roles in the terms of the W3C DPV (its 27560 guide,
 * https://w3id.org/dpv/guides/consent-27560), and the event's place in the organisation's hash chain
 * (docs/consents.md "Consent receipts"; docs/decisions/0019-consent-receipts.md). Pure mapping: the
 * service reads the inputs and signs the answer.
 */
import { type Static, Type } from 'typebox';
import type { RecordedDataAttribute } from '../data-attributes/service.js';
import type { SealedEvent } from '../evidence/chain.js';
import { expiryOf } from '../model/values.js';
import type { RecordedPurpose } from '../purposes/service.js';
import type { RetentionBody } from '../retention/service.js';

/** The `schema_version` of the receipts built here (ISO/IEC TS 27560 "schema version"). */
export const RECEIPT_SCHEMA = 'assent-consent-receipt/1 (ISO/IEC TS 27560:2023)';

const Instant = Type.String({ description: 'RFC 3339, UTC, with milliseconds' });
const Nullable = <T extends ReturnType<typeof Type.String>>(t: T) => Type.Union([t, Type.Null()]);

/** A consent receipt: the JSON of the receipt answer and, unchanged, the payload of its JWS. */
export const ConsentReceipt = Type.Object({
  iss: Type.String({ description: 'the issuer: Assent’s public URL (RFC 7519 §4.1.1)' }),
  iat: Type.Integer({ description: 'when this receipt was issued: seconds since the epoch (RFC 7519 §4.1.6)' }),
  schema_version: Type.String({ description: `27560 schema version: "${RECEIPT_SCHEMA}"` }),
  receipt_id: Type.String({ description: '27560 receipt id: a UUID v4, new for every receipt issued' }),
  record_id: Type.String({ description: '27560 record id: the consent event’s `ID` in the history' }),
  consent_record_id: Type.String({ description: 'the individual’s consent record in the organisation (`ConsentID`)' }),
  pii_principal_id: Type.String({
    description: '27560 PII principal id: the individual’s user ID (no name or e-mail)',
  }),
  pii_controller: Type.Object({
    party_id: Type.String({ description: 'the organisation’s ID' }),
    party_name: Type.String({ description: 'the organisation’s name' }),
    party_role: Type.String({ description: 'always "dpv:DataController"' }),
  }),
  purpose: Type.Object({
    purpose_id: Type.String(),
    name: Type.String(),
    description: Type.String(),
    policy_url: Type.String(),
    lawful_usage: Type.Boolean({ description: 'the API’s `LawfulUsage`: true when the lawful basis is not consent' }),
    lawful_basis: Type.String({
      description:
        '"eu-gdpr:A6-1-a" (consent) when `lawful_usage` is false, else "dpv:LegalBasis" (another basis of GDPR Art. 6(1), not named in Assent)',
    }),
    deleted: Type.Boolean({ description: 'whether the purpose has been deleted since' }),
    retention_period: Type.Object(
      { enabled: Type.Boolean(), seconds: Type.Integer({ description: 'seconds' }) },
      { description: 'the organisation’s data-retention setting when the receipt was issued' },
    ),
  }),
  pii_information: Type.Object({
    pii_attribute_id: Type.String({ description: 'the data attribute’s ID (the API’s template ID)' }),
    pii_type: Type.String({ description: 'the data attribute’s name' }),
    deleted: Type.Boolean({ description: 'whether the data attribute has been deleted since' }),
  }),
  event: Type.Object({
    event_time: Instant,
    event_state: Type.String({ description: 'given (Allow, AskMe), withdrawn, refused or expired (Disallow)' }),
    consent_status: Type.String({
      description: 'DPV: dpv:ConsentGiven, dpv:ConsentWithdrawn, dpv:ConsentRefused or dpv:ConsentExpired',
    }),
    value: Type.String({ description: 'Allow, Disallow or AskMe' }),
    days: Type.Integer({ description: 'days given with the value (0 = no time limit)' }),
    validity_duration: Nullable(Type.String({ description: 'ISO 8601 duration, e.g. P7D: AskMe with days only' })),
    expires_at: Nullable(Type.String({ description: 'RFC 3339: when an AskMe with days runs out, else null' })),
    previous_value: Type.String({ description: 'the value this event replaced' }),
    previous_days: Type.Integer({ description: 'days' }),
    entity: Type.Object(
      {
        type: Type.String({ description: 'individual, apiKey (the organisation’s back end) or system (AskMe expiry)' }),
        user_id: Type.String({ description: '"" for system' }),
        api_key_id: Type.String({ description: '"" when no API key was used' }),
      },
      { description: '27560 entity id: who made the change' },
    ),
    collection_method: Type.Object(
      { endpoint: Type.String(), user_agent: Type.String() },
      { description: 'the channel: `METHOD /path` (or the job) and the User-Agent' },
    ),
    request_id: Type.String({ description: 'the X-Request-Id of the change’s answer' }),
  }),
  evidence: Type.Object(
    {
      seq: Type.Integer({ description: 'the event’s position in the organisation’s chain, from 1' }),
      hash: Type.String({ description: 'hex SHA-256 of the event’s RFC 8785 canonical JSON' }),
      prev_link: Type.String({ description: 'hex link of the previous event (64 zeros before the first)' }),
      link: Type.String({ description: 'hex SHA-256(prev_link ‖ hash)' }),
    },
    { description: 'the event in the organisation’s hash chain (`GET …/consents/history/verify` checks the chain)' },
  ),
});
/** A consent receipt. */
export type ConsentReceipt = Static<typeof ConsentReceipt>;

/** What a receipt is built from. */
export interface ReceiptInput {
  event: SealedEvent;
  /** The name of the event's organisation (its ID is the event's `orgId`). */
  organisationName: string;
  /** null when the purpose row is gone (never, with soft deletion): its fields are then empty. */
  purpose: RecordedPurpose | null;
  attribute: RecordedDataAttribute | null;
  retention: RetentionBody['DataRetention'];
  issuer: string;
  /** seconds since the epoch */
  iat: number;
  receiptId: string;
}

/**
 * The 27560 state of an event (DPV consent statuses): Allow and AskMe give consent; Disallow
 * withdraws it (GDPR Art. 7(3)) when it replaced Allow or AskMe, refuses it when it replaced
 * Disallow, and is an expiry when the AskMe sweep wrote it.
 */
function stateOf(e: SealedEvent): { event_state: string; consent_status: string } {
  if (e.newValue !== 'Disallow') return { event_state: 'given', consent_status: 'dpv:ConsentGiven' };
  if (e.actor.type === 'system') return { event_state: 'expired', consent_status: 'dpv:ConsentExpired' };
  if (e.oldValue === 'Disallow') return { event_state: 'refused', consent_status: 'dpv:ConsentRefused' };
  return { event_state: 'withdrawn', consent_status: 'dpv:ConsentWithdrawn' };
}

/**
 * Maps one sealed event and what it names to a receipt. The event's own fields are carried
 * unchanged, so that its `hash` recomputes from the receipt (docs/consents.md "Consent receipts").
 */
export function buildReceipt(input: ReceiptInput): ConsentReceipt {
  const { event: e, purpose: p, attribute: a } = input;
  const expiry = expiryOf(e.newValue, e.newDays, new Date(e.occurredAt));
  return {
    iss: input.issuer,
    iat: input.iat,
    schema_version: RECEIPT_SCHEMA,
    receipt_id: input.receiptId,
    record_id: e.id,
    consent_record_id: e.recordId,
    pii_principal_id: e.userId,
    pii_controller: { party_id: e.orgId, party_name: input.organisationName, party_role: 'dpv:DataController' },
    purpose: {
      purpose_id: e.purposeId,
      name: p?.name ?? '',
      description: p?.description ?? '',
      policy_url: p?.policyUrl ?? '',
      lawful_usage: p?.lawfulUsage ?? false,
      lawful_basis: p?.lawfulUsage ? 'dpv:LegalBasis' : 'eu-gdpr:A6-1-a',
      deleted: p?.deletedAt != null,
      retention_period: { enabled: input.retention.Enabled, seconds: input.retention.RetentionPeriod },
    },
    pii_information: { pii_attribute_id: e.attributeId, pii_type: a?.name ?? '', deleted: a?.deletedAt != null },
    event: {
      event_time: e.occurredAt,
      ...stateOf(e),
      value: e.newValue,
      days: e.newDays,
      validity_duration: expiry ? `P${e.newDays}D` : null,
      expires_at: expiry ? expiry.toISOString() : null,
      previous_value: e.oldValue,
      previous_days: e.oldDays,
      entity: { type: e.actor.type, user_id: e.actor.userId ?? '', api_key_id: e.actor.apiKeyId ?? '' },
      collection_method: { endpoint: e.channel.endpoint, user_agent: e.channel.userAgent },
      request_id: e.requestId,
    },
    evidence: {
      seq: e.seq,
      hash: e.contentHash.toString('hex'),
      prev_link: e.prevLink.toString('hex'),
      link: e.link.toString('hex'),
    },
  };
}
