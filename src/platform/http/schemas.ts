/**
 * TypeBox schemas of the resources shared by several endpoints (docs/api.md "Resources"). Responses are
 * serialised through them, so a field not declared here never leaves the server.
 */
import { type Static, Type } from 'typebox';

/** Error body (docs/api.md "Errors"); `error`/`error_description` on token endpoints (RFC 6749 §5.2). */
export const ErrorBody = Type.Object(
  {
    Code: Type.Integer({ description: 'HTTP status' }),
    Message: Type.String(),
    error: Type.Optional(Type.String({ description: 'RFC 6749 §5.2 error code (token endpoints only)' })),
    error_description: Type.Optional(Type.String()),
  },
  { $id: 'Error' },
);

/** The Token of docs/api.md "Resources". */
export const TokenBody = Type.Object(
  {
    access_token: Type.String({ description: 'JWT (RFC 9068), ES256' }),
    expires_in: Type.Integer({ description: 'seconds' }),
    refresh_token: Type.String({ description: 'JWT; single use, rotated by POST /users/token' }),
    refresh_expires_in: Type.Integer({ description: 'seconds' }),
    token_type: Type.String({ description: 'always "bearer"' }),
  },
  { $id: 'Token' },
);
/** A Token body. */
export type TokenBody = Static<typeof TokenBody>;

/** The User of docs/api.md "Resources"; every field optional in responses. */
export const UserBody = Type.Object(
  {
    ID: Type.Optional(Type.String()),
    Name: Type.Optional(Type.String()),
    IamID: Type.Optional(Type.String()),
    Email: Type.Optional(Type.String()),
    Phone: Type.Optional(Type.String()),
    ImageID: Type.Optional(Type.String()),
    ImageURL: Type.Optional(Type.String()),
    LastVisit: Type.Optional(Type.String({ description: 'RFC 3339' })),
    Client: Type.Optional(Type.Object({ Token: Type.String(), Type: Type.Integer() })),
    Orgs: Type.Optional(
      Type.Array(
        Type.Object({
          OrgID: Type.String(),
          Name: Type.String(),
          Location: Type.String(),
          Type: Type.String(),
          TypeID: Type.String(),
          EulaAccepted: Type.Boolean(),
        }),
      ),
    ),
    APIKey: Type.Optional(Type.String({ description: 'long-lived JWT' })),
    Roles: Type.Optional(Type.Array(Type.Object({ RoleID: Type.Integer(), OrgID: Type.String() }))),
  },
  { $id: 'User' },
);
/** A User body. */
export type UserBody = Static<typeof UserBody>;

/** The login response of docs/api.md "Resources". */
export const LoginResponse = Type.Object(
  { User: Type.Ref('User'), Token: Type.Ref('Token') },
  { $id: 'LoginResponse' },
);

/** Shared schemas to register with `app.addSchema` before any route refers to them. */
export const SHARED_SCHEMAS = [ErrorBody, TokenBody, UserBody, LoginResponse];

/** Error responses a route may give, for its `response` schema. */
export function errors(...codes: number[]): Record<number, ReturnType<typeof Type.Ref>> {
  return Object.fromEntries(codes.map((c) => [c, Type.Ref('Error')]));
}
