/** TypeBox schemas of the consent resources (docs/api.md "Resources"; docs/api.md "Responses"). */
import { type Static, Type } from 'typebox';
import { MAX_DAYS } from '../model/values.js';

const Status = Type.Object({
  Consent: Type.String({ description: 'Allow, Disallow or AskMe (an AskMe that ran out reads Disallow)' }),
  Consented: Type.String({ description: 'the same value as Consent; every deployed client reads this key' }),
  TimeStamp: Type.String({ description: 'RFC 3339: when the value was chosen (the record creation for a default)' }),
  Days: Type.Integer({ description: 'days given with the choice; 0 = no time limit' }),
  Remaining: Type.Integer({ description: 'days left: Days minus whole days elapsed, never below 0' }),
});

/** The AttributeConsent of docs/api.md "Resources". */
export const AttributeConsent = Type.Object({
  ID: Type.String({ description: 'the data attribute (template) ID' }),
  Description: Type.String({ description: 'the attribute name' }),
  Value: Type.String({ description: 'the individual\'s data value; Assent holds none, so always ""' }),
  Status,
});

const PurposeRef = Type.Object({
  ID: Type.String(),
  Name: Type.String(),
  Description: Type.String(),
  LawfulUsage: Type.Boolean(),
  PolicyURL: Type.String(),
});

const DataRetention = Type.Object({
  Expiry: Type.String({
    description: 'RFC 3339: latest consent to the purpose plus the retention period; "" when none applies',
  }),
});

/** The ConsentsAndPurpose of docs/api.md "Resources"; `DataRetention` is left out of the get-by-ID answer. */
export const ConsentsAndPurpose = Type.Object({
  Purpose: PurposeRef,
  Count: Type.Object({ Total: Type.Integer(), Consented: Type.Integer() }),
  Consents: Type.Array(AttributeConsent),
  DataRetention: Type.Optional(DataRetention),
});
/** One purpose of a consent record. */
export type ConsentsAndPurposeBody = Static<typeof ConsentsAndPurpose>;

/** The user consents record of docs/api.md "Resources". */
export const ConsentRecordBody = Type.Object({
  ID: Type.String({ description: 'the consent record ID (consentID)' }),
  OrgID: Type.String(),
  UserID: Type.String(),
  ConsentsAndPurposes: Type.Array(ConsentsAndPurpose),
});
/** A consent record body. */
export type ConsentRecordBody = Static<typeof ConsentRecordBody>;

/** The purpose consents record of docs/api.md "Resources"; `ID` is the purpose's ID (docs/api.md). */
export const PurposeConsentsBody = Type.Object({
  ID: Type.String({ description: 'the purpose ID' }),
  ConsentID: Type.String(),
  OrgID: Type.String(),
  UserID: Type.String(),
  DataRetention,
  Consents: ConsentsAndPurpose,
});

/** The attribute-consent update result of docs/api.md "Resources". */
export const UpdateResultBody = Type.Object({
  ID: Type.String({ description: 'the consent record ID' }),
  OrgID: Type.String(),
  UserID: Type.String(),
  Purposes: Type.Array(
    Type.Object({
      ID: Type.String(),
      AllowAll: Type.Boolean({ description: 'true when every attribute of the purpose is Allow' }),
      Consents: Type.Array(
        Type.Object({
          Status: Type.Object({ Consented: Type.String(), TimeStamp: Type.String(), Days: Type.Integer() }),
          Value: Type.String(),
          TemplateID: Type.String({ description: 'the attribute ID' }),
        }),
      ),
    }),
  ),
});
/** An update result body. */
export type UpdateResultBody = Static<typeof UpdateResultBody>;

/** One event of the consent history (docs/decisions/0005-consent-evidence.md "Evidence"), as the history endpoints show it. */
export const ConsentEvent = Type.Object({
  ID: Type.String(),
  Seq: Type.Integer({ description: 'position in the organisation’s chain, from 1' }),
  ConsentID: Type.String(),
  UserID: Type.String(),
  PurposeID: Type.String(),
  AttributeID: Type.String(),
  OldValue: Type.String(),
  NewValue: Type.String(),
  OldDays: Type.Integer({ description: 'days' }),
  NewDays: Type.Integer({ description: 'days' }),
  TimeStamp: Type.String({ description: 'RFC 3339' }),
  Actor: Type.Object({
    Type: Type.String({ description: 'individual, apiKey or system' }),
    UserID: Type.String(),
    APIKeyID: Type.String(),
  }),
  Channel: Type.Object({ Endpoint: Type.String(), UserAgent: Type.String() }),
  RequestID: Type.String(),
  Hash: Type.String({ description: 'hex SHA-256 of the event’s RFC 8785 canonical JSON' }),
  PrevLink: Type.String({ description: 'hex link of the previous event (64 zeros before the first)' }),
  Link: Type.String({ description: 'hex SHA-256(PrevLink ‖ Hash)' }),
});
/** A consent event body. */
export type ConsentEventBody = Static<typeof ConsentEvent>;
const ValueCounts = (what: string) =>
  Type.Object({
    Allow: Type.Integer({ description: `${what} Allow` }),
    Disallow: Type.Integer({ description: `${what} Disallow` }),
    AskMe: Type.Integer({ description: `${what} AskMe` }),
  });

/** The organisation's consent overview (docs/consents.md "Overview and trend"). */
export const OverviewBody = Type.Object({
  OrgID: Type.String(),
  At: Type.String({ description: 'RFC 3339: the instant counted at' }),
  Individuals: Type.Integer({ description: 'individuals subscribed to the organisation' }),
  Purposes: Type.Array(
    Type.Object({
      ID: Type.String(),
      Name: Type.String(),
      LawfulUsage: Type.Boolean({
        description: 'true: a lawful basis other than consent, where an undecided attribute reads Allow',
      }),
      Attributes: Type.Array(
        Type.Object({
          ID: Type.String({ description: 'the data attribute (template) ID' }),
          Name: Type.String(),
          Allow: Type.Integer({ description: 'individuals whose stored value is Allow' }),
          Disallow: Type.Integer({
            description: 'individuals whose stored value is Disallow, or an AskMe whose days ran out',
          }),
          AskMe: Type.Integer({ description: 'individuals whose AskMe has no days or has not run out' }),
          Undecided: Type.Integer({
            description: 'individuals with no value stored: they read Allow under LawfulUsage, else Disallow',
          }),
          Consented: Type.Integer({
            description: "Allow + AskMe (+ Undecided under LawfulUsage): the attribute's consented-users page",
          }),
        }),
      ),
    }),
  ),
});
/** An overview body. */
export type OverviewBody = Static<typeof OverviewBody>;

/** The organisation's consent trend, one entry per UTC day (docs/consents.md "Overview and trend"). */
export const TrendBody = Type.Object({
  OrgID: Type.String(),
  PurposeID: Type.String({ description: 'the purpose asked for; "" for every live purpose' }),
  From: Type.String({ description: 'RFC 3339: 00:00 UTC of the first day' }),
  To: Type.String({ description: 'RFC 3339: the instant of the answer, in the last day (today)' }),
  Days: Type.Array(
    Type.Object({
      Date: Type.String({ description: 'the UTC day, YYYY-MM-DD; oldest first, today last' }),
      Changes: ValueCounts('consent history events of the day whose new value is'),
      Totals: ValueCounts('attribute consents that read, at the end of the day (now, for today),'),
    }),
  ),
});
/** A trend body. */
export type TrendBody = Static<typeof TrendBody>;

/** The path of an individual's consent routes: `{organizationID}` and `{userID}` (any strings; an unknown one is a 404). */
export const UserParams = Type.Object({ organizationID: Type.String(), userID: Type.String() });
/** The path of a consent record: the individual's path and `{consentID}`. */
export const RecordParams = Type.Object({ ...UserParams.properties, consentID: Type.String() });
/** The path of a purpose of a consent record: the record's path and `{purposeID}`. */
export const PurposeParams = Type.Object({ ...RecordParams.properties, purposeID: Type.String() });
/** The path of an attribute consent: the purpose's path and `{attributeID}`. */
export const AttributeParams = Type.Object({ ...PurposeParams.properties, attributeID: Type.String() });

/**
 * A consent value as sent (docs/api.md "Permissions and consents"): Allow, Disallow or AskMe in any case, at most 20
 * characters; `parseConsentValue` (model/values.ts) reads it, a 400 for any other value.
 */
export const Consented = Type.String({ maxLength: 20, description: 'Allow, Disallow or AskMe, in any case' });

/**
 * The body of `PATCH …/consents/{consentID}/purposes/{purposeID}`: 1 to 500 attribute IDs (≤ 100 characters each;
 * a repeated one counts once) and the value they all take, with no time limit.
 */
export const PurposeUpdateBody = Type.Object({
  consentattributes: Type.Array(Type.Object({ attributeid: Type.String({ maxLength: 100 }) }), {
    minItems: 1,
    maxItems: 500,
  }),
  consented: Consented,
});
/** A purpose update body. */
export type PurposeUpdateBody = Static<typeof PurposeUpdateBody>;

/** The answer of `GET …/purposes/{purposeID}/status`: the purpose's consent status (docs/api.md "Resources"). */
export const PurposeStatusBody = Type.Object({ Consented: Type.String() });
/** A purpose status answer. */
export type PurposeStatusBody = Static<typeof PurposeStatusBody>;

/** The body of `POST …/purposes/{purposeID}/status`: the value every attribute of the purpose takes (days 0). */
export const PurposeStatusUpdateBody = Type.Object({ consented: Consented });
/** A purpose status update body. */
export type PurposeStatusUpdateBody = Static<typeof PurposeStatusUpdateBody>;

/**
 * The body of `PATCH …/attributes/{attributeID}`: the value, the days (0 to `MAX_DAYS`; 0 = no time limit), or both;
 * `attributeChoice` (model/values.ts) decides what the pair means.
 */
export const AttributeUpdateBody = Type.Object({
  consented: Type.Optional(Consented),
  days: Type.Optional(
    Type.Integer({
      minimum: 0,
      maximum: MAX_DAYS,
      description:
        'days; 0 = no time limit (the default); sent alone (at least 1), or with Allow, AskMe for that many ' +
        'days; not stored with Disallow',
    }),
  ),
});
/** An attribute update body. */
export type AttributeUpdateBody = Static<typeof AttributeUpdateBody>;

/** The answer of `PATCH …/attributes/{attributeID}`: always `{ Msg: "Consent updated successfully", Status: 200 }`. */
export const AttributeUpdatedBody = Type.Object({ Msg: Type.String(), Status: Type.Integer() });
/** An attribute update answer. */
export type AttributeUpdatedBody = Static<typeof AttributeUpdatedBody>;
