/**
 * Issuing consent receipts (docs/consents.md "Consent receipts"; docs/decisions/0019-consent-receipts.md):
 * one event of an individual's consent history as an ISO/IEC TS 27560 record (`receipt-record.ts`), signed
 * as a JWS with Assent's signing keys so that anyone can check it against the JWKS.
 */
import { randomUUID } from 'node:crypto';
import { type DocumentSigner, DocumentType } from '../../identity/index.js';
import { organisationName } from '../../organisations/index.js';
import { NotFound } from '../../platform/core/errors.js';
import type { Principal } from '../../platform/core/principal.js';
import type { Db } from '../../platform/db/open.js';
import { isId } from '../../platform/util/ids.js';
import type { DataAttributeService } from '../data-attributes/service.js';
import type { ChainSealer } from '../evidence/sealer.js';
import * as evidence from '../evidence/store.js';
import type { PurposeService } from '../purposes/service.js';
import type { ConsentService } from '../records/service.js';
import type { RetentionService } from '../retention/service.js';
import { buildReceipt, type ConsentReceipt } from './receipt-record.js';

/** A receipt and its compact JWS, whose payload is the receipt unchanged. */
export interface SignedReceipt {
  receipt: ConsentReceipt;
  /** `alg: ES256`, `kid` of the signing key, `typ: consent-receipt+jwt`. */
  jws: string;
}

/** Issues consent receipts of history events; the web dashboard calls `receipt`. */
export class ReceiptService {
  constructor(
    private readonly db: Db,
    /** Flushed before the event is read, so that an event committed before the request is found sealed. */
    private readonly sealer: ChainSealer,
    /** Decides access, as for the history list (`open` with `history`). */
    private readonly consents: ConsentService,
    private readonly purposes: Pick<PurposeService, 'recorded'>,
    private readonly dataAttributes: Pick<DataAttributeService, 'recorded'>,
    private readonly retention: Pick<RetentionService, 'get'>,
    private readonly signer: DocumentSigner,
    /** `iss` of every receipt: the public URL. */
    private readonly issuer: string,
  ) {}

  /**
   * The receipt of one event of `userId`'s consent history in `orgId`, signed now with the active
   * key. Each call issues a new receipt (new `receipt_id` and `iat`) of the same event.
   * @param principal - the caller: the individual themself, or a Dpo of the organisation (the
   *   history's rule, src/consent/records/access.ts).
   * @throws {NotFound} when the organisation, the consent record or the event is unknown or
   *   malformed, or the event is another record's.
   * @throws {AccessDenied} when the caller may not read this individual's history.
   */
  async receipt(principal: Principal, orgId: string, userId: string, eventId: string): Promise<SignedReceipt> {
    const { db, sealer, consents, signer, issuer } = this;
    const { record } = await consents.open(principal, { orgId, userId }, 'history');
    if (!isId(eventId)) throw new NotFound('Consent event not found');
    await sealer.flush(record.orgId);
    const event = await evidence.sealedEvent(db, record.orgId, record.id, eventId);
    if (!event) throw new NotFound('Consent event not found');
    const [name, purpose, attribute, retention] = await Promise.all([
      organisationName(db, event.orgId),
      this.purposes.recorded(event.orgId, event.purposeId),
      this.dataAttributes.recorded(event.orgId, event.attributeId),
      this.retention.get(event.orgId),
    ]);
    const receipt = buildReceipt({
      event,
      organisationName: name ?? '',
      purpose,
      attribute,
      retention: retention.DataRetention,
      issuer,
      iat: Math.floor(Date.now() / 1000),
      receiptId: randomUUID(),
    });
    // Threat: token confusion (RFC 8725 §3.11). Signed with the keys of the access tokens, a receipt
    // carries its own `typ`, which the auth guard never accepts, so it cannot be replayed as a token.
    const jws = await signer.signDocument(DocumentType.consentReceipt, receipt);
    return { receipt, jws };
  }
}
