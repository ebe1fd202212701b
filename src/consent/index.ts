/**
 * The public entry of the consent context (docs/development.md "Bounded contexts"): what the other contexts may use of
 * it, among them the SQL of the counting rule for statements that combine consents with other things in one round trip
 * (the recipient scan of a special consent request). Each name is documented where it is defined.
 */
export { CatalogueCache } from './catalogue/cache.js';
export { dataAttributeEvent, purposeEvent } from './catalogue/events.js';
export { dataAttributeRoutes } from './data-attributes/routes.js';
export { DataAttributeInput } from './data-attributes/schemas.js';
export { type DataAttributeBody, DataAttributeService } from './data-attributes/service.js';
export { ChainSealer } from './evidence/sealer.js';
export { HistoryService, type presentEvent } from './history/history.js';
export { receiptRoutes } from './history/receipt-routes.js';
export { ReceiptService } from './history/receipts.js';
export { historyRoutes } from './history/routes.js';
export { ConsentCheckService } from './listings/check.js';
export { checkRoutes } from './listings/check-routes.js';
export { overviewRoutes } from './listings/overview-routes.js';
export { listingRoutes } from './listings/routes.js';
export { ListingService } from './listings/service.js';
export { COUNTING } from './model/counting.js';
export { attributeChoice } from './model/values.js';
export type { OrganisationBody } from './purposes/present.js';
export { purposeRoutes } from './purposes/routes.js';
export { PurposeInput } from './purposes/schemas.js';
export { PurposeService } from './purposes/service.js';
export { GroupCommit } from './records/group-commit.js';
export { OwnRecords } from './records/own.js';
export { RecordViews } from './records/reads.js';
export { consentRoutes, requestMeta } from './records/routes.js';
export type {
  ConsentEventBody,
  ConsentRecordBody,
  ConsentsAndPurposeBody,
  OverviewBody,
  TrendBody,
} from './records/schemas.js';
export { ConsentService } from './records/service.js';
export { scheduleSweep } from './records/sweep.js';
export { consentRequestRoutes } from './requests/routes.js';
export { ConsentRequestInput } from './requests/schemas.js';
export { type ConsentRequestDelivery, ConsentRequestService, type JobView } from './requests/service.js';
export { retentionRoutes } from './retention/routes.js';
export { RetentionService } from './retention/service.js';
export { ConsentExport, ExportedEvent, type ExportedEventBody, ExportedRecord } from './transfer/export.js';
export { type ConsentHistoryImport, consentHistoryImport, type ImportedConsentHistory } from './transfer/import.js';
