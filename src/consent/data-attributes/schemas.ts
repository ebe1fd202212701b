/** TypeBox schemas of the data-attribute routes (called templates in the API's paths and fields, docs/api.md). */
import { type Static, Type } from 'typebox';

/** A data attribute as the API answers it: its ID, its name (`Consent`) and the purposes it is linked to. */
export const DataAttributeBody = Type.Object({
  ID: Type.String(),
  Consent: Type.String({ description: 'the data attribute’s name' }),
  PurposeIDs: Type.Array(Type.String()),
});
/** A data attribute body. */
export type DataAttributeBody = Static<typeof DataAttributeBody>;

/** The API's data attribute fields (also the console's form, src/web/console). */
export const DataAttributeInput = Type.Object({
  consent: Type.String({ minLength: 1, maxLength: 200, description: 'the data attribute’s name' }),
  purposeids: Type.Optional(Type.Array(Type.String({ maxLength: 100 }), { maxItems: 100 })),
});
/** A data attribute's input fields. */
export type DataAttributeInput = Static<typeof DataAttributeInput>;

/** The body of `POST …/templates`: 1 to 100 data attributes to add. */
export const CreateBody = Type.Object({ templates: Type.Array(DataAttributeInput, { minItems: 1, maxItems: 100 }) });
/** A `POST …/templates` body. */
export type CreateBody = Static<typeof CreateBody>;

/** The path of `…/templates/{templateID}`: the organisation and the data attribute. */
export const DataAttributeParams = Type.Object({ organizationID: Type.String(), templateID: Type.String() });
