/**
 * TypeBox schemas of the consent history routes (docs/decisions/0005-consent-evidence.md "Evidence") and of the
 * consent receipt route (docs/consents.md "Consent receipts").
 */
import { type Static, Type } from 'typebox';
import { Links, PageQuery } from '../../platform/http/pagination.js';
import { ConsentEvent, ConsentsAndPurpose, UserParams } from '../records/schemas.js';
import { ConsentReceipt } from './receipt-record.js';

/**
 * The query of `GET …/users/{userID}/consents/history`: a page, and optional filters: one purpose (an ID of
 * ≤ 100 characters) and an RFC 3339 range, both ends inclusive (`parseInstant` reads them, a 400 otherwise).
 */
export const HistoryQuery = Type.Object({
  ...PageQuery,
  purposeid: Type.Optional(Type.String({ maxLength: 100 })),
  from: Type.Optional(Type.String({ maxLength: 40, description: 'RFC 3339, inclusive' })),
  to: Type.Optional(Type.String({ maxLength: 40, description: 'RFC 3339, inclusive' })),
});
/** A history query. */
export type HistoryQuery = Static<typeof HistoryQuery>;

/** A page of an individual's consent events, newest first, with the pagination links. */
export const HistoryPage = Type.Object({ Events: Type.Array(ConsentEvent), Links });
/** A history page. */
export type HistoryPage = Static<typeof HistoryPage>;

/** The query of `GET …/consents/history`: the instant (RFC 3339, read by `parseInstant`) and the individual's ID. */
export const AtQuery = Type.Object({
  at: Type.String({ maxLength: 40, description: 'RFC 3339' }),
  userid: Type.String({ maxLength: 100 }),
});
/** An `at` query. */
export type AtQuery = Static<typeof AtQuery>;

/** What an individual's consent record was at an instant: the record body of docs/api.md "Resources" with `At`. */
export const RecordAtBody = Type.Object({
  ID: Type.String(),
  OrgID: Type.String(),
  UserID: Type.String(),
  At: Type.String(),
  ConsentsAndPurposes: Type.Array(ConsentsAndPurpose),
});
/** A record-at-an-instant body. */
export type RecordAtBody = Static<typeof RecordAtBody>;

/**
 * The answer of `GET …/consents/history/verify`: whether the organisation's event chain recomputes, how many events
 * it holds, and the sequence number of the first broken link (null when none) with the reason.
 */
export const VerifyBody = Type.Object({
  Valid: Type.Boolean(),
  Events: Type.Integer(),
  FirstBrokenSeq: Type.Union([Type.Integer(), Type.Null()]),
  Reason: Type.String(),
});
/** A verification answer. */
export type VerifyBody = Static<typeof VerifyBody>;

/** The path of a consent receipt: the individual's path and `{eventID}`. */
export const EventParams = Type.Object({ ...UserParams.properties, eventID: Type.String() });

/** The answer of the receipt route: the ISO/IEC TS 27560 receipt and its compact JWS (RFC 7515 §7.1). */
export const ReceiptBody = Type.Object({
  Receipt: ConsentReceipt,
  JWS: Type.String({ description: 'compact JWS (RFC 7515 §7.1) of `Receipt`' }),
});
/** A receipt answer. */
export type ReceiptBody = Static<typeof ReceiptBody>;
