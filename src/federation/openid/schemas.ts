/**
 * HTTP schemas shared by the OpenID (routes.ts) and SAML (saml/routes.ts) halves of federation
 * (docs/federation.md): both brokers start a sign-in with the same query, so apps need nothing new.
 */
import { type Static, Type } from 'typebox';
import { MAX_REDIRECT_URIS } from './redirect-uris.js';

/** The path's organisation: `{organizationID}` (any string; an unknown or malformed ID is a 404). */
export const OrgParams = Type.Object({ organizationID: Type.String() });

/** The OpenAPI security of the configuration routes: a bearer access token or API key. */
export const security = [{ bearer: [] }];

/** The OpenAPI tag of every federation route. */
export const tags = ['federation'];

/**
 * The query of `…/authorize` (docs/decisions/0013-federation-broker.md): `redirect_uri`, one of the
 * organisation's registered app URIs (≤ 2000 characters), and the app's opaque `state` (≤ 500),
 * returned to it unchanged (RFC 6749 §4.1.1).
 */
export const AuthorizeQuery = Type.Object({
  redirect_uri: Type.String({ minLength: 1, maxLength: 2000 }),
  state: Type.Optional(Type.String({ maxLength: 500 })),
});

/** The body of the app redirect URIs: at most `MAX_REDIRECT_URIS` URIs of ≤ 2000 characters (the console's form reuses its limits). */
export const RedirectUris = Type.Object({
  RedirectURIs: Type.Array(Type.String({ maxLength: 2000 }), { maxItems: MAX_REDIRECT_URIS }),
});
/** An app redirect URIs body. */
export type RedirectUris = Static<typeof RedirectUris>;

/** The answer of `GET …/idp/open-id/redirect-uri`: Assent's callback URI, to register at the external provider. */
export const RedirectUriBody = Type.Object({ RedirectURI: Type.String() });
/** A redirect URI answer. */
export type RedirectUriBody = Static<typeof RedirectUriBody>;

/**
 * The query of `GET …/idp/open-id/callback`: the provider's authorization response (RFC 6749 §4.1.2, §4.1.2.1;
 * RFC 9207 `iss`; OpenID Connect Session Management `session_state`), each field optional and bounded.
 */
export const CallbackQuery = Type.Object({
  code: Type.Optional(Type.String({ maxLength: 4000 })),
  state: Type.Optional(Type.String({ maxLength: 500 })),
  iss: Type.Optional(Type.String({ maxLength: 2000 })),
  session_state: Type.Optional(Type.String({ maxLength: 500 })),
  error: Type.Optional(Type.String({ maxLength: 200 })),
  error_description: Type.Optional(Type.String({ maxLength: 2000 })),
});
/** A callback query. */
export type CallbackQuery = Static<typeof CallbackQuery>;

/**
 * The query of `POST …/idp/open-id/exchange`: the app redirect URI the sign-in returned to (≤ 2000 characters) and
 * the code it received (≤ 4000), both required.
 */
export const ExchangeQuery = Type.Object({
  redirect_uri: Type.String({ minLength: 1, maxLength: 2000 }),
  code: Type.String({ minLength: 1, maxLength: 4000 }),
});
/** An exchange query. */
export type ExchangeQuery = Static<typeof ExchangeQuery>;
