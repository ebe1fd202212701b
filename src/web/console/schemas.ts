/**
 * TypeBox schemas of the console's pages (docs/web.md "Console"): the CSRF field every form carries, the paths of an
 * organisation's pages, and the organisation page's forms. The API's own bodies stay with their context; a form
 * reuses their fields and limits.
 */
import { type Static, Type } from 'typebox';
import { DataAttributeInput, PurposeInput } from '../../consent/index.js';

/** The CSRF field of a console form (checked by the web guard), to spread into a form's fields. */
export const Csrf = { _csrf: Type.Optional(Type.String({ maxLength: 100 })) };

/** The path parameters of an organisation's console page. */
export const Org = Type.Object({ organizationID: Type.String() });

/** The path parameters of a purpose's forms: the organisation and `{purposeID}`. */
export const OrgPurpose = Type.Object({ organizationID: Type.String(), purposeID: Type.String() });

/** The path parameters of a data attribute's forms: the organisation and `{templateID}`. */
export const OrgTemplate = Type.Object({ organizationID: Type.String(), templateID: Type.String() });

/** The query of the organisation page: `done`, which saved-notice to show (≤ 40 characters; an unknown one shows none). */
export const DoneQuery = Type.Object({ done: Type.Optional(Type.String({ maxLength: 40 })) });
/** An organisation page query. */
export type DoneQuery = Static<typeof DoneQuery>;

/**
 * The retention form: `enabled` a checkbox (sent as `on`), `days` 1 to 5 digits (the route checks 1 to 36,500,
 * the API's bounds).
 */
export const RetentionForm = Type.Object({
  ...Csrf,
  enabled: Type.Optional(Type.Literal('on')),
  days: Type.String({ pattern: '^[0-9]{1,5}$' }),
});
/** A retention form. */
export type RetentionForm = Static<typeof RetentionForm>;

/** The API's purpose fields as a form: `lawfulusage` is a checkbox (sent as `on`). */
export const PurposeForm = Type.Object({
  ...Csrf,
  name: PurposeInput.properties.name,
  description: PurposeInput.properties.description,
  policyurl: PurposeInput.properties.policyurl,
  lawfulusage: Type.Optional(Type.Literal('on')),
});
/** A purpose form. */
export type PurposeForm = Static<typeof PurposeForm>;

/** The API's data attribute fields as a form. */
export const AttributeForm = Type.Object({ ...Csrf, ...DataAttributeInput.properties });
/** A data attribute form. */
export type AttributeForm = Static<typeof AttributeForm>;

/** A deletion's form: its confirmation box must be ticked (sent as `on`), else a 400 page and nothing changes. */
export const Confirmed = Type.Object({ ...Csrf, confirm: Type.Literal('on') });
/** A deletion form. */
export type Confirmed = Static<typeof Confirmed>;
