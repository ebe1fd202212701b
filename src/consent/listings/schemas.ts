/**
 * TypeBox schemas of the consented-user pages (docs/api.md "Permissions and consents") and of the consent
 * trend's query (docs/consents.md "Overview and trend"). The overview and trend bodies are in
 * `../records/schemas.ts`.
 */
import { type Static, Type } from 'typebox';
import { Links } from '../../platform/http/pagination.js';
import { DEFAULT_TREND_DAYS, MAX_TREND_DAYS } from './service.js';

/** A page of consenting users, in user-ID order, with the link to the next page. */
export const Page = Type.Object({
  Users: Type.Array(
    Type.Object({ ID: Type.String(), Name: Type.String(), Phone: Type.String(), Email: Type.String() }),
  ),
  Links,
});
/** A page of consenting users. */
export type Page = Static<typeof Page>;

/** The path of `…/purposes/{purposeID}/consented/users`: the organisation and the purpose. */
export const PurposeParams = Type.Object({ organizationID: Type.String(), purposeID: Type.String() });

/** The path of `…/purposes/{purposeID}/attributes/{attributeID}/consented/users`. */
export const AttributeParams = Type.Object({
  organizationID: Type.String(),
  purposeID: Type.String(),
  attributeID: Type.String(),
});

/** The query of `…/consents/trend`: the number of days (today included) and optionally one purpose. */
export const TrendQuery = Type.Object({
  days: Type.Optional(
    Type.String({ description: `days, today included: 1..${MAX_TREND_DAYS} (default ${DEFAULT_TREND_DAYS})` }),
  ),
  purposeid: Type.Optional(Type.String({ maxLength: 100, description: 'one live purpose; absent for all' })),
});
/** A trend query. */
export type TrendQuery = Static<typeof TrendQuery>;
