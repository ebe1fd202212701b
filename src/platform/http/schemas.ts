/**
 * TypeBox schemas shared by the API as a whole: the error body (docs/api.md "Errors") and the organisation
 * path parameter. A context's own bodies live in its `schemas.ts`; pagination is in `pagination.ts`.
 */
import { Type } from 'typebox';

/** Error body (docs/api.md "Errors"); `error`/`error_description` on token endpoints (RFC 6749 §5.2). */
export const ErrorBody = Type.Object(
  {
    Code: Type.Integer({ description: 'HTTP status' }),
    Message: Type.String(),
    error: Type.Optional(Type.String({ description: 'RFC 6749 §5.2 error code (token endpoints only)' })),
    error_description: Type.Optional(Type.String()),
    mfa_token: Type.Optional(
      Type.String({ description: 'a login that needs a second factor: the token of its second step (docs/api.md)' }),
    ),
  },
  { $id: 'Error' },
);

/** The path of an organisation's routes: `{organizationID}` (any string; an unknown one is a 404). */
export const OrgParams = Type.Object({ organizationID: Type.String() });

/** Error responses a route may give, for its `response` schema. */
export function errors(...codes: number[]): Record<number, ReturnType<typeof Type.Ref>> {
  return Object.fromEntries(codes.map((c) => [c, Type.Ref('Error')]));
}
