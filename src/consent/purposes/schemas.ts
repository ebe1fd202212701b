/**
 * TypeBox schemas of the purpose routes' input (docs/api.md). The answered Purpose and Organization bodies
 * are in `present.ts`, beside the code that builds them.
 */
import { type Static, Type } from 'typebox';

/** The API's purpose fields (also the console's form, src/web/console). */
export const PurposeInput = Type.Object({
  name: Type.String({ minLength: 1, maxLength: 200 }),
  description: Type.Optional(Type.String({ maxLength: 2000 })),
  lawfulusage: Type.Optional(Type.Boolean()),
  policyurl: Type.Optional(Type.String({ maxLength: 2000, pattern: '^(https?://\\S+)?$' })),
});
/** A purpose's input fields. */
export type PurposeInput = Static<typeof PurposeInput>;

/** The body of `POST …/purposes`: 1 to 100 purposes to add. */
export const CreateBody = Type.Object({ purposes: Type.Array(PurposeInput, { minItems: 1, maxItems: 100 }) });
/** A `POST …/purposes` body. */
export type CreateBody = Static<typeof CreateBody>;

/** The path of `…/purposes/{purposeID}`: the organisation and the purpose. */
export const PurposeParams = Type.Object({ organizationID: Type.String(), purposeID: Type.String() });
