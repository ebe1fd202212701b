/**
 * TypeBox schemas of the consented-user pages (docs/api.md "Permissions and consents"), of the consent
 * trend's query (docs/consents.md "Overview and trend") and of the bulk consent check (docs/api.md "Bulk consent
 * check"). The overview and trend bodies are in `../records/schemas.ts`.
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

/** Most individuals one bulk consent check reads (count). */
export const MAX_CHECK_USERS = 1000;
/** Most data attributes one bulk consent check names (count), as the special consent request. */
export const MAX_CHECK_ATTRIBUTES = 500;

/**
 * The body of the bulk consent check (docs/api.md "Bulk consent check"): the individuals, the purpose, and optionally
 * some of its data attributes (absent: every live attribute of the purpose).
 */
export const CheckInput = Type.Object({
  userids: Type.Array(Type.String({ maxLength: 64 }), {
    minItems: 1,
    maxItems: MAX_CHECK_USERS,
    description: `user IDs, 1..${MAX_CHECK_USERS}, each once; the answer keeps their order`,
  }),
  purposeid: Type.String({ maxLength: 100 }),
  attributeids: Type.Optional(
    Type.Array(Type.String({ maxLength: 64 }), {
      minItems: 1,
      maxItems: MAX_CHECK_ATTRIBUTES,
      description: 'data attributes of the purpose (repeats count once); absent: every live attribute of it',
    }),
  ),
});
/** A bulk consent check body. */
export type CheckInput = Static<typeof CheckInput>;

/** One attribute of one individual in a bulk consent check's answer. */
export const CheckedAttribute = Type.Object({
  AttributeID: Type.String(),
  Value: Type.Union([Type.Literal('Allow'), Type.Literal('Disallow'), Type.Literal('AskMe')], {
    description: 'the value in force at `ReadAt`, as `Status.Consented` of the consents API reads it',
  }),
  Counts: Type.Boolean({ description: 'Allow or an unexpired AskMe (docs/api.md "Count")' }),
  Days: Type.Optional(
    Type.Integer({ description: 'an AskMe in force with a time limit only: the days given with the choice' }),
  ),
  Expires: Type.Optional(
    Type.String({ description: 'an AskMe in force with a time limit only: RFC 3339 instant it reads Disallow from' }),
  ),
});
/** One checked attribute. */
export type CheckedAttribute = Static<typeof CheckedAttribute>;

/** The answer of the bulk consent check (docs/api.md "Bulk consent check"). */
export const CheckBody = Type.Object({
  OrgID: Type.String(),
  PurposeID: Type.String(),
  LawfulUsage: Type.Boolean({ description: 'the purpose’s lawful basis: undecided attributes read its default' }),
  ReadAt: Type.String({ description: 'RFC 3339: the instant the values were read at' }),
  Seq: Type.Integer({
    description:
      'the organisation’s consent-history chain head in the snapshot the values were read from (0: no event yet): ' +
      'every event with a Seq up to it is reflected',
  }),
  Individuals: Type.Array(
    Type.Object({
      UserID: Type.String({ description: 'as sent' }),
      Subscribed: Type.Boolean({ description: 'false: not an individual of this organisation, and no Attributes' }),
      Attributes: Type.Array(CheckedAttribute, { description: 'in the order asked, or the purpose’s order' }),
    }),
  ),
});
/** A bulk consent check answer. */
export type CheckBody = Static<typeof CheckBody>;
