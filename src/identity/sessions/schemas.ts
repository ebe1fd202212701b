/**
 * TypeBox schemas of the login, token-refresh and logout routes (docs/api.md "Identity management") and the
 * Token and login-response resources of docs/api.md "Resources".
 */
import { type Static, Type } from 'typebox';

/**
 * The Token of docs/api.md "Resources". Registered with `app.addSchema` as `Token` (src/app/server.ts), so
 * routes refer to it with `Type.Ref('Token')`.
 */
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

/**
 * The login response of docs/api.md "Resources": `{"User": …, "Token": …}`. Registered as `LoginResponse`
 * (src/app/server.ts); it refers to the `User` and `Token` schemas by ID.
 */
export const LoginResponse = Type.Object(
  { User: Type.Ref('User'), Token: Type.Ref('Token') },
  { $id: 'LoginResponse' },
);

/**
 * The body of the logins: `username` (≤ 320 characters), `password` (≤ 1024) and optionally the `clientid`
 * to bind the session to.
 */
export const Credentials = Type.Object({
  username: Type.String({ minLength: 1, maxLength: 320 }),
  password: Type.String({ minLength: 1, maxLength: 1024, format: 'password' }),
  clientid: Type.Optional(
    Type.String({
      minLength: 1,
      maxLength: 200,
      description: 'client to bind the session to; default: ASSENT_DEFAULT_CLIENT_ID or the first registered client',
    }),
  ),
});
/** A login body. */
export type Credentials = Static<typeof Credentials>;

/** The body of the token refresh and the logout: the session's refresh token and its client. */
export const RefreshBody = Type.Object({
  refreshtoken: Type.String({ minLength: 1, maxLength: 4096 }),
  clientid: Type.String({ minLength: 1, maxLength: 200 }),
});
/** A refresh or logout body. */
export type RefreshBody = Static<typeof RefreshBody>;
