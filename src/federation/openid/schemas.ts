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
